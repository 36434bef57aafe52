import { writeFileSync } from 'node:fs';
import WebSocket from 'ws';

// Bytes the server allocates during a scenario (`--allocation`): V8's sampling heap profiler,
// driven through the server's inspector (it is started with --inspect on a port of its own),
// with objects already collected by the young and the old generation's collections kept in the
// profile, so the sum is what was allocated, not what is still alive. The profile scales each
// sampled size to stand for the allocations around it, so the sum estimates the total. The
// profiler costs CPU: a run with --allocation measures allocation, not CPU.

interface ProfileNode {
  selfSize: number;
  children: ProfileNode[];
}

const SAMPLING_INTERVAL_BYTES = 1024;

class Inspector {
  private nextId = 1;
  private readonly waiting = new Map<number, (message: { result?: unknown; error?: { message: string } }) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
      if (message.id !== undefined) this.waiting.get(message.id)?.(message);
    });
  }

  static async connect(port: number): Promise<Inspector> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
    const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    return new Inspector(socket);
  }

  send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, (message) => {
        this.waiting.delete(id);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result as T);
      });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  close(): void {
    this.socket.close();
  }
}

const totalSize = (node: ProfileNode): number => node.children.reduce((sum, child) => sum + totalSize(child), node.selfSize);

/**
 * Starts sampling the server's allocations; the function it answers stops and gives the
 * bytes allocated meanwhile (with `includeScavenged` false: of those, the bytes no
 * young-generation collection freed), and writes the profile to `profileFile` (DevTools opens it: Memory,
 * Load) to see where they were allocated.
 */
export async function allocationMeter(inspectPort: number, profileFile: string, includeScavenged = true): Promise<() => Promise<number>> {
  const inspector = await Inspector.connect(inspectPort);
  // Without the objects the young generation's collections freed, the profile keeps what
  // outlived them: promoted to the old generation (stopping the profiler runs a major
  // collection, which must not take those out: they were copied either way).
  await inspector.send('HeapProfiler.startSampling', {
    samplingInterval: SAMPLING_INTERVAL_BYTES,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: includeScavenged,
  });
  return async () => {
    const { profile } = await inspector.send<{ profile: { head: ProfileNode } }>('HeapProfiler.stopSampling');
    inspector.close();
    writeFileSync(profileFile, JSON.stringify(profile));
    return totalSize(profile.head);
  };
}
