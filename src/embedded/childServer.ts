import { spawn, type ChildProcess } from 'node:child_process';

// Starts a server binary as a child process and waits until it prints its ready line.
// Used by the dev launcher and the test harness for redis-server and the MongoDB wire server.

export interface ChildServer {
  url: string;
  /** Its process id (the benchmarks read its memory use). */
  pid: number;
  /** Everything it printed so far. */
  output(): string;
  stop(): Promise<void>;
}

export async function startChildServer(options: {
  name: string;
  command: string;
  args: string[];
  readyLine: RegExp;
  url: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /** The directory it runs in (this process's unless said). */
  cwd?: string;
}): Promise<ChildServer> {
  const child = spawn(options.command, options.args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env }, cwd: options.cwd });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.name} did not start within ${(options.timeoutMs ?? 15_000) / 1000} s:\n${output}`));
    }, options.timeoutMs ?? 15_000);
    const onData = (data: Buffer) => {
      output += data.toString();
      if (options.readyLine.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${options.command} (${options.name}): ${error.message}`));
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with code ${code} before it was ready:\n${output}`));
    });
  });
  // Its output keeps being read (so the pipe never fills and blocks it) and kept.
  return { url: options.url, pid: child.pid!, output: () => output, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
