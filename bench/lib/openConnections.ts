import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { percentile } from './measure.js';
import { processMemory } from './processes.js';

// Many idle keep-alive connections to a running server (docs/benchmarks.md, "Open
// connections"): opens them, each carrying one request and then left idle, and measures
// what they cost the server's memory (RSS from /proc) and whether requests on another
// connection are still answered, and how fast, with all of them open. Linux only (/proc).

export interface OpenConnectionsOptions {
  /** The server's base URL (http://127.0.0.1:port). */
  url: string;
  /** The server's process id, for its RSS. */
  pid: number;
  /** Connections wanted; fewer when this process may not open that many files (`fdLimit`). */
  count: number;
  /** A workspace secret key: the probes also create hold tokens (Redis, a script call). */
  workspaceKey: string;
  /** Connections being opened at a time. */
  openingAtOnce?: number;
  /**
   * Then wait (up to 20 s) for the server to close the idle connections itself: uWebSockets.js
   * closes an HTTP connection idle for about 10 s.
   */
  awaitIdleClose?: boolean;
}

export interface ProbeFigures {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Answers that were not 200. */
  failed: number;
}

export interface OpenConnectionsFigures {
  /** Open files this process may have (soft and hard limits, /proc/self/limits). */
  fdLimit: { soft: number; hard: number };
  /** The server's own soft limit: it needs a file per connection too. */
  serverFdLimit: number;
  requested: number;
  /** What was opened: `requested`, or fewer when a file limit is lower (`limitedBy` says which). */
  target: number;
  limitedBy?: string;
  opened: number;
  /** Connections that failed to open or to answer their first request. */
  failedToOpen: number;
  openSeconds: number;
  /** Of `opened`, still open when the probes ended ... */
  stillOpen: number;
  /** ... this long after the first one opened (the server closes a connection idle for about 10 s). */
  probesEndedAfterSeconds: number;
  rssBeforeBytes: number;
  rssWithConnectionsBytes: number;
  rssGrowthPerConnectionBytes: number;
  /** Requests on a connection of their own, before the connections were opened and while they were. */
  probeBefore: ProbeFigures;
  probeWhileOpen: ProbeFigures;
  /** Whether the server process was still running at the end. */
  serverAlive: boolean;
  /** With `awaitIdleClose`: how many the server closed, how long after the last one opened, and its RSS then. */
  idleClose?: { closedByServer: number; lastClosedAfterSeconds: number; rssAfterBytes: number };
}

/** Files this process may open (Max open files, /proc/self/limits). */
function fileLimits(pid: number | 'self'): { soft: number; hard: number } {
  const line = /Max open files\s+(\S+)\s+(\S+)/.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
  const value = (raw: string | undefined) => (raw === undefined || raw === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(raw));
  return { soft: value(line?.[1]), hard: value(line?.[2]) };
}

/** Files kept free beside the connections (the probes, the server's Redis and MongoDB connections, its logs). */
const FILE_MARGIN = 500;

const GET_HEALTH = 'GET /health HTTP/1.1\r\nHost: bench\r\nConnection: keep-alive\r\n\r\n';

/** A TCP connection that has sent one request and read its whole answer, then stays idle. */
function openOne(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let received = '';
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.setEncoding('latin1');
    socket.once('error', fail);
    socket.once('connect', () => socket.write(GET_HEALTH));
    socket.on('data', function onData(chunk: string) {
      received += chunk;
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const length = Number(/content-length:\s*(\d+)/i.exec(received.slice(0, headEnd))?.[1] ?? 0);
      if (received.length < headEnd + 4 + length) return;
      socket.off('data', onData);
      socket.off('error', fail);
      // From now on it only has to stay open; errors (a reset at the end) are expected.
      socket.on('error', () => undefined);
      if (!received.startsWith('HTTP/1.1 200')) return fail(new Error(received.slice(0, 100)));
      resolve(socket);
    });
  });
}

/** Sequential requests on one keep-alive connection of their own: /health and POST /hold-tokens in turn. */
async function probe(url: string, workspaceKey: string, requests: number): Promise<ProbeFigures> {
  const { hostname, port } = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const authorization = 'Basic ' + Buffer.from(`${workspaceKey}:`).toString('base64');
  const times: number[] = [];
  let failed = 0;
  try {
    for (let i = 0; i < requests; i++) {
      const holdToken = i % 2 === 1;
      const started = performance.now();
      const status = await new Promise<number>((resolve) => {
        const req = request(
          { agent, hostname, port, method: holdToken ? 'POST' : 'GET', path: holdToken ? '/hold-tokens' : '/health', headers: holdToken ? { authorization } : {} },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          },
        );
        req.setTimeout(10_000, () => req.destroy());
        req.on('error', () => resolve(0));
        req.end();
      });
      times.push(performance.now() - started);
      if (status !== 200) failed++;
    }
  } finally {
    agent.destroy();
  }
  times.sort((a, b) => a - b);
  const ms = (value: number) => Math.round(value * 100) / 100;
  return { requests, p50Ms: ms(percentile(times, 50)), p99Ms: ms(percentile(times, 99)), maxMs: ms(times[times.length - 1]!), failed };
}

/** `requests` GET /health on 50 keep-alive connections. */
async function warmUp(url: string, requests: number): Promise<void> {
  const { hostname, port } = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 50 });
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next++ < requests) {
          await new Promise<void>((resolve, reject) => {
            const req = request({ agent, hostname, port, path: '/health' }, (res) => {
              res.resume();
              res.on('end', resolve);
            });
            req.on('error', reject);
            req.end();
          });
        }
      }),
    );
  } finally {
    agent.destroy();
  }
}

const rssOf = (pid: number) => processMemory(pid).rssBytes;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function measureOpenConnections(options: OpenConnectionsOptions): Promise<OpenConnectionsFigures> {
  const { url, pid, count, workspaceKey } = options;
  const { hostname, port } = new URL(url);
  const fdLimit = fileLimits('self');
  const serverFdLimit = fileLimits(pid).soft;
  let target = count;
  let limitedBy: string | undefined;
  if (fdLimit.soft - FILE_MARGIN < target) {
    target = Math.max(0, fdLimit.soft - FILE_MARGIN);
    limitedBy = `this process may open ${fdLimit.soft} files (ulimit -n; hard limit ${fdLimit.hard})`;
  }
  if (serverFdLimit - FILE_MARGIN < target) {
    target = Math.max(0, serverFdLimit - FILE_MARGIN);
    limitedBy = `the server may open ${serverFdLimit} files (ulimit -n)`;
  }

  // Warm-up: as many requests as the connections will carry, on a few connections, so the
  // server's heap has grown for that traffic before the baseline is read.
  await warmUp(url, target);
  const probeBefore = await probe(url, workspaceKey, 200);
  const rssBeforeBytes = rssOf(pid);

  const sockets: Socket[] = [];
  let closed = 0;
  let lastClosedAt = 0;
  const onClose = () => {
    closed++;
    lastClosedAt = performance.now();
  };
  let failedToOpen = 0;
  const openStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: options.openingAtOnce ?? 200 }, async () => {
      while (next < target) {
        next++;
        try {
          const socket = await openOne(hostname, Number(port));
          socket.once('close', onClose);
          sockets.push(socket);
        } catch {
          failedToOpen++;
        }
      }
    }),
  );
  const openedAt = performance.now();
  const openSeconds = Math.round(openedAt - openStarted) / 1000;

  try {
    const probeWhileOpen = await probe(url, workspaceKey, 200);
    const rssWithConnectionsBytes = rssOf(pid);
    const stillOpen = sockets.length - closed;
    const probesEndedAfterSeconds = Math.round(performance.now() - openStarted) / 1000;
    let idleClose: OpenConnectionsFigures['idleClose'];
    if (options.awaitIdleClose) {
      const deadline = performance.now() + 20_000;
      while (closed < sockets.length && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const seconds = closed === 0 ? 0 : Math.round(lastClosedAt - openedAt) / 1000;
      idleClose = { closedByServer: closed, lastClosedAfterSeconds: seconds, rssAfterBytes: rssOf(pid) };
    }
    return {
      fdLimit,
      serverFdLimit,
      requested: count,
      target,
      ...(limitedBy ? { limitedBy } : {}),
      opened: sockets.length,
      failedToOpen,
      openSeconds,
      stillOpen,
      probesEndedAfterSeconds,
      rssBeforeBytes,
      rssWithConnectionsBytes,
      rssGrowthPerConnectionBytes: sockets.length === 0 ? 0 : Math.round((rssWithConnectionsBytes - rssBeforeBytes) / sockets.length),
      probeBefore,
      probeWhileOpen,
      serverAlive: alive(pid),
      ...(idleClose ? { idleClose } : {}),
    };
  } finally {
    for (const socket of sockets) socket.destroy();
  }
}
