import net from 'node:net';
import { inject } from 'vitest';

/**
 * A MONITOR connection read straight off its socket. ioredis's own monitor mode only starts
 * reading MONITOR's lines once MONITOR's "+OK" has resolved a promise; a line that comes in the
 * same packet as that "+OK" (the test Redis is shared by test files running alongside) is taken
 * as a reply to no command, and the connection fails with "Command queue state error".
 */
export class RedisMonitor {
  /** Every command Redis ran since MONITOR, in order, each as its arguments (command first). */
  readonly commands: string[][] = [];
  private buffered = '';
  private waiters: (() => void)[] = [];

  private constructor(private readonly socket: net.Socket) {}

  static open(url: string): Promise<RedisMonitor> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname);
      const monitor = new RedisMonitor(socket);
      let started = false;
      socket.setEncoding('latin1');
      socket.once('error', reject);
      socket.on('data', (chunk: string) => {
        monitor.buffered += chunk;
        let end: number;
        while ((end = monitor.buffered.indexOf('\r\n')) >= 0) {
          const line = monitor.buffered.slice(0, end);
          monitor.buffered = monitor.buffered.slice(end + 2);
          if (!started) {
            if (line !== '+OK') return reject(new Error(`MONITOR answered ${line}`));
            started = true;
            resolve(monitor);
          } else {
            monitor.commands.push(parseMonitorLine(line));
          }
        }
        for (const wake of monitor.waiters.splice(0)) wake();
      });
      socket.write('MONITOR\r\n');
    });
  }

  /** A MONITOR on the test Redis, or on every node of the cluster in the cluster project (keys live in their own slots). */
  private static openOnEveryNode(): Promise<RedisMonitor[]> {
    const nodes = inject('redisClusterNodes');
    const urls = nodes === '' ? [inject('redisUrl')] : nodes.split(',').map((node) => `redis://${node}`);
    return Promise.all(urls.map((url) => RedisMonitor.open(url)));
  }

  /**
   * Every command Redis ran, on every node, while `run` ran and until one that `until` matches
   * was seen (MONITOR's lines come a little after the replies).
   */
  static async commandsWhile(run: () => Promise<unknown>, until: (args: string[]) => boolean): Promise<string[][]> {
    const monitors = await RedisMonitor.openOnEveryNode();
    try {
      await run();
      await Promise.any(monitors.map((monitor) => monitor.seen(until)));
      return monitors.flatMap((monitor) => monitor.commands);
    } finally {
      for (const monitor of monitors) monitor.close();
    }
  }

  /**
   * Resolves once a command that `matches` has been seen at or after `from` in `commands`
   * (MONITOR shows commands in the order Redis ran them).
   */
  async seen(matches: (args: string[]) => boolean, from = 0, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.commands.slice(from).some(matches)) {
      from = this.commands.length; // looked at up to here
      if (Date.now() > deadline) throw new Error('MONITOR did not show the command in time');
      await new Promise<void>((wake) => {
        this.waiters.push(wake);
        setTimeout(wake, 50);
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** `+1700000000.123456 [0 127.0.0.1:5000] "HMGET" "key" "a\"b"` into ['HMGET', 'key', 'a"b']. */
export function parseMonitorLine(line: string): string[] {
  const args: string[] = [];
  let i = line.indexOf('"');
  while (i >= 0 && i < line.length) {
    let arg = '';
    i++;
    while (i < line.length && line[i] !== '"') {
      if (line[i] === '\\') {
        const next = line[i + 1];
        if (next === 'x') {
          arg += String.fromCharCode(parseInt(line.slice(i + 2, i + 4), 16));
          i += 4;
          continue;
        }
        arg += ({ n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' } as Record<string, string>)[next ?? ''] ?? next ?? '';
        i += 2;
        continue;
      }
      arg += line[i++];
    }
    args.push(arg);
    i = line.indexOf('"', i + 1);
  }
  return args;
}
