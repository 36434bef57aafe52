import { fork, type ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';
import { freePort } from './embedded/freePort.js';

// `WORKERS=N npm start`: N server processes on one port (docs/operations.md, "One process per core").
// Each child is a whole server (src/main.ts with WORKERS=1); uWebSockets.js listens with
// SO_REUSEPORT on Linux, so the kernel spreads new connections over the processes. They
// share nothing in memory: caches are kept coherent through Redis pub/sub, and every
// process runs its share of the background jobs unless BACKGROUND_JOBS=off. This process
// only starts them, restarts one that dies, and passes SIGTERM/SIGINT on.

/** A child that dies on its own is started again after this long (not in a loop of crashes). */
const RESTART_DELAY_MS = 1_000;

export interface ServerProcessesOptions {
  count: number;
  /** The port every child listens on; 0 picks a free one first, so they all share it. */
  port: number;
  /** The script each child runs (dist/src/main.js). */
  script: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
}

export interface RunningServerProcesses {
  port: number;
  /** Resolves once every process of the first start said it listens. */
  ready: Promise<void>;
  pids(): number[];
  /** Passes the signal to every child; resolves true when all exited 0. */
  stop(signal: NodeJS.Signals): Promise<boolean>;
}

export async function runServerProcesses(options: ServerProcessesOptions): Promise<RunningServerProcesses> {
  const port = options.port === 0 ? await freePort() : options.port;
  /** Each running child and the promise of its exit code. */
  const children = new Map<ChildProcess, Promise<number | null>>();
  let stopping = false;
  let listening = 0;
  let allListening!: () => void;
  const ready = new Promise<void>((resolve) => (allListening = resolve));

  const start = (): void => {
    const child = fork(options.script, [], { env: { ...options.env, WORKERS: '1', PORT: String(port) }, stdio: 'inherit' });
    // A server process says so once it listens (src/main.ts).
    child.on('message', (message: { listening?: number }) => {
      if (message.listening !== undefined && ++listening === options.count) allListening();
    });
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code, signal) => {
        children.delete(child);
        resolve(code);
        if (stopping) return;
        options.logger.error({ pid: child.pid, code, signal }, 'server process exited; starting another');
        setTimeout(() => !stopping && start(), RESTART_DELAY_MS);
      }),
    );
    children.set(child, exited);
  };
  for (let i = 0; i < options.count; i++) start();

  return {
    port,
    ready,
    pids: () => [...children.keys()].map((c) => c.pid!),
    async stop(signal) {
      stopping = true;
      const running = [...children];
      for (const [child] of running) child.kill(signal);
      const codes = await Promise.all(running.map(([, exited]) => exited));
      return codes.every((code) => code === 0);
    },
  };
}
