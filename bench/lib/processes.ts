import { readFileSync } from 'node:fs';

// What the processes of a run use, from /proc (Linux): where a scenario's CPU went (the
// server, redis-server, the load generator, i.e. this process, where autocannon runs, and the
// in-memory MongoDB the server started, if any),
// as percent of one core over the scenario's wall time, and the server's memory. On a
// 2-core machine they share 200 %, which is what limits the figures.

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds a process used so far (user + system), from /proc/<pid>/stat. */
export function cpuSecondsOf(pid: number): number {
  return cpuSecondsIn(`/proc/${pid}/stat`);
}

/**
 * CPU seconds of a process's main thread alone (its JavaScript event loop), without its
 * other threads (V8's GC helpers, libuv's pool, the background jobs' worker thread).
 */
const mainThreadCpuSecondsOf = (pid: number): number => cpuSecondsIn(`/proc/${pid}/task/${pid}/stat`);

function cpuSecondsIn(file: string): number {
  const stat = readFileSync(file, 'utf8');
  // Fields after the command name (which may hold spaces) in parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

const ownCpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** CPU seconds all processes of the machine used so far (all cores, idle excluded). */
function machineBusySeconds(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  const idle = ticks[3]! + ticks[4]!; // idle + iowait
  return (ticks.reduce((a, b) => a + b, 0) - idle) / TICKS_PER_SECOND;
}

/**
 * A counter of the kernel's TCP statistics (the `TcpExt:` lines of /proc/net/netstat: a line
 * of names, then a line of values), or undefined when the text has none by that name.
 */
export function tcpExtCounter(netstat: string, name: string): number | undefined {
  const lines = netstat.split('\n').filter((line) => line.startsWith('TcpExt:'));
  const names = lines[0]?.trim().split(/\s+/);
  const values = lines[1]?.trim().split(/\s+/);
  const at = names?.indexOf(name) ?? -1;
  return at > 0 && values?.[at] !== undefined ? Number(values[at]) : undefined;
}

/**
 * The machine's TCP retransmission timeouts so far (all sockets, all processes). On loopback a
 * segment is lost only when the kernel drops it, as under TCP memory pressure, and each one
 * costs its connection 200 ms or more (docs/status-stream.md, "What limits the 5,000-subscriber
 * run here"). 0 where /proc/net/netstat cannot be read.
 */
function tcpTimeoutsSoFar(): number {
  try {
    return tcpExtCounter(readFileSync('/proc/net/netstat', 'utf8'), 'TCPTimeouts') ?? 0;
  } catch {
    return 0;
  }
}

export interface CpuShares {
  /** The whole machine, all processes: at most 100 × cores. */
  machineCpuPct: number;
  serverCpuPct: number;
  /** The server processes' main threads (serverCpuPct counts their other threads too). */
  serverMainThreadCpuPct: number;
  redisCpuPct: number;
  generatorCpuPct: number;
  /** The background jobs' own process (`--jobs-apart`: the history drain, hold expiry), when the run has one. */
  jobsCpuPct?: number;
  /** The in-memory MongoDB wire server of `npm run dev`, when the server started one (mongoPidsOf). */
  mongoCpuPct?: number;
  /** The machine's TCP retransmission timeouts during the scenario (tcpTimeoutsSoFar): above 0, its latencies hold 200 ms waits the server did not cause. */
  tcpTimeouts: number;
}

/**
 * The server's processes: the one the bench started and, with WORKERS=N, the server
 * processes it runs (its node children; its redis-server and MongoDB children are not the
 * server's). Read from /proc/<pid>/task/<pid>/children.
 */
export function serverPids(pid: number): number[] {
  return [pid, ...childrenNamed(pid, 'node')];
}

/**
 * The in-memory MongoDB wire server the server started (`npm run dev` without MONGODB_URL):
 * its process is a child of the server's, named jongodb. None when MongoDB is elsewhere.
 */
export const mongoPidsOf = (serverPid: number): number[] => childrenNamed(serverPid, 'jongodb');

/** A process's children whose command name is `name`, from /proc/<pid>/task/<pid>/children (none where the kernel does not tell). */
function childrenNamed(pid: number, name: string): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // Not readable on this kernel.
  }
  const named = (child: number) => {
    try {
      return readFileSync(`/proc/${child}/comm`, 'utf8').trim() === name;
    } catch {
      return false;
    }
  };
  return children.filter(named);
}

const cpuSecondsOfAll = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);

/** Starts measuring; the returned function gives each process's share since then (the server's processes together, and the redis-servers'). */
export function cpuMeter(serverPid: number, redisPids: number[], { jobsPid, mongoPids = [] }: { jobsPid?: number; mongoPids?: number[] } = {}): () => CpuShares {
  const started = performance.now();
  const serverProcesses = serverPids(serverPid);
  const server = cpuSecondsOfAll(serverProcesses);
  const mainThreads = () => serverProcesses.reduce((sum, pid) => sum + mainThreadCpuSecondsOf(pid), 0);
  const serverMain = mainThreads();
  const redis = cpuSecondsOfAll(redisPids);
  const jobs = jobsPid === undefined ? 0 : cpuSecondsOf(jobsPid);
  const mongo = cpuSecondsOfAll(mongoPids);
  const own = ownCpuSeconds();
  const machine = machineBusySeconds();
  const timeouts = tcpTimeoutsSoFar();
  return () => {
    const seconds = (performance.now() - started) / 1000;
    // To a tenth of a percent: /proc counts in 10 ms ticks, a thousandth of a 10-s scenario,
    // and whole percents were a sixth of `/health`'s 6 µs per request at 80,000 a second.
    const pct = (used: number) => Math.round((used / seconds) * 1000) / 10;
    return {
      machineCpuPct: pct(machineBusySeconds() - machine),
      serverCpuPct: pct(cpuSecondsOfAll(serverProcesses) - server),
      serverMainThreadCpuPct: pct(mainThreads() - serverMain),
      redisCpuPct: pct(cpuSecondsOfAll(redisPids) - redis),
      generatorCpuPct: pct(ownCpuSeconds() - own),
      ...(jobsPid === undefined ? {} : { jobsCpuPct: pct(cpuSecondsOf(jobsPid) - jobs) }),
      ...(mongoPids.length === 0 ? {} : { mongoCpuPct: pct(cpuSecondsOfAll(mongoPids) - mongo) }),
      tcpTimeouts: tcpTimeoutsSoFar() - timeouts,
    };
  };
}

/** Resident and peak memory of a process (of the server's processes together, summed), from /proc (Linux). */
export function processMemory(pid: number): { rssBytes: number; peakRssBytes: number } {
  let rssBytes = 0;
  let peakRssBytes = 0;
  for (const one of serverPids(pid)) {
    const status = readFileSync(`/proc/${one}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
    rssBytes += kb('VmRSS');
    peakRssBytes += kb('VmHWM');
  }
  return { rssBytes, peakRssBytes };
}
