// The gauges of the server's GET /metrics (Prometheus text), by name; 0 for one it lacks.

export async function serverGauges(serverUrl: string): Promise<(name: string) => number> {
  const text = await (await fetch(`${serverUrl}/metrics`)).text();
  return (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
}

/**
 * How the server's memory splits (docs/operations.md, "Configuration", memory): its V8 heap (used: live objects
 * and garbage not collected yet; total: what the heap holds from the system) and Buffers
 * outside it. RSS minus heap total and external is native memory. With several server
 * processes this is the one that answered.
 */
export async function serverHeap(serverUrl: string): Promise<{ heapUsedBytes: number; heapTotalBytes: number; externalBytes: number }> {
  const gauge = await serverGauges(serverUrl);
  return { heapUsedBytes: gauge('process_heap_used_bytes'), heapTotalBytes: gauge('process_heap_total_bytes'), externalBytes: gauge('process_external_bytes') };
}
