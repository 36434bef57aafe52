// The requests each call of the status function carried while a scenario ran (batched calls:
// docs/performance.md, "Batched calls"), from the server's /metrics histogram
// `status_call_requests` read before and after it: their mean, and their p50 and p99 as the
// histogram's bucket bounds (1, 2, 4, ... 128). With several server processes, the figures of
// the one that answered /metrics.

const BUCKET = /^status_call_requests_bucket\{le="([^"]+)"\} (\d+)$/gm;

export interface CallRequests {
  /** Cumulative calls per bucket bound, in order. */
  buckets: [number, number][];
  calls: number;
  requests: number;
}

export async function callRequests(serverUrl: string): Promise<CallRequests> {
  const text = await (await fetch(`${serverUrl}/metrics`)).text();
  const buckets: [number, number][] = [];
  for (const [, le, count] of text.matchAll(BUCKET)) if (le !== '+Inf') buckets.push([Number(le), Number(count)]);
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { buckets, calls: gauge('status_call_requests_count'), requests: gauge('status_call_requests_sum') };
}

/** The figures of a scenario: none when the server sent no status call (or has no such histogram). */
export function callBatchFigures(before: CallRequests, after: CallRequests): Record<string, number> {
  const calls = after.calls - before.calls;
  if (!(calls > 0)) return {};
  const bound = (share: number) => {
    for (let i = 0; i < after.buckets.length; i++) {
      const below = after.buckets[i]![1] - (before.buckets[i]?.[1] ?? 0);
      if (below >= share * calls) return after.buckets[i]![0];
    }
    return after.buckets[after.buckets.length - 1]?.[0] ?? 0;
  };
  return {
    statusCalls: calls,
    requestsPerStatusCall: Math.round(((after.requests - before.requests) / calls) * 100) / 100,
    requestsPerStatusCallP50: bound(0.5),
    requestsPerStatusCallP99: bound(0.99),
  };
}
