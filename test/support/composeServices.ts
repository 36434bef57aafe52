import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startChildServer } from '../../src/embedded/childServer.js';

// docker-compose.yml's services run as processes of this machine, for a test of the file
// itself where no Docker engine or image registry is at hand: each service's own command and
// environment, as the file writes them, with what a container would have given it stood in:
//
// - its network: an address of its own on the loopback network (127.a.b.n), its name in
//   commands and environment replaced by that address (Docker's DNS would resolve it), and
//   `--bind <address> --bind-source-addr <address>` added to a redis-server, which in its
//   container listens and connects from the one interface it has;
// - its file system: a folder of its own for its working directory (`--dir`) and for the
//   files its script writes in /tmp;
// - the images: `redis:*` is this machine's redis-server (the image turns protected mode off,
//   so `--protected-mode no` is added), `build: .` is the Dockerfile's CMD run in this
//   checkout (dist/ built), and a service whose image has no stand-in here (MongoDB) is
//   replaced by an address given, the test's MongoDB wire server.

export interface ComposeService {
  image?: string;
  build?: string;
  entrypoint?: string[];
  command?: string[];
  environment?: Record<string, string>;
  profiles?: string[];
  depends_on?: Record<string, { condition: string }>;
}

export interface RunningService {
  name: string;
  /** Its stand-in network address. */
  address: string;
  pid: number;
  output(): string;
  /** Kills it (SIGKILL) and waits for it to be gone. */
  kill(): Promise<void>;
}

/** The services of `file` that `profile` starts (and the ones they depend on), in an order that starts each after its dependencies. */
export function composeServices(file: string, profile: string): { order: string[]; services: Record<string, ComposeService> } {
  const services = (parse(readFileSync(file, 'utf8')) as { services: Record<string, ComposeService> }).services;
  const wanted = new Set(Object.keys(services).filter((name) => services[name]!.profiles?.includes(profile)));
  for (const name of [...wanted]) for (const needed of Object.keys(services[name]!.depends_on ?? {})) wanted.add(needed);
  // In rounds, as compose starts them: each round every service whose dependencies have
  // started, in the file's order.
  const order: string[] = [];
  while (order.length < wanted.size) {
    const round = Object.keys(services).filter((name) => wanted.has(name) && !order.includes(name) && Object.keys(services[name]!.depends_on ?? {}).every((needed) => order.includes(needed)));
    if (round.length === 0) throw new Error('docker-compose.yml: a circle of depends_on');
    order.push(...round);
  }
  return { order, services };
}

/** The Dockerfile's last CMD (its exec form). */
function dockerfileCommand(file: string): string[] {
  const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line.startsWith('CMD '));
  return JSON.parse(lines.at(-1)!.slice(4)) as string[];
}

export class ComposeStandIn {
  /** Each service's address: its name in commands and environment becomes this. */
  readonly addresses = new Map<string, string>();

  constructor(
    private readonly services: Record<string, ComposeService>,
    /** A folder for the services' own files. */
    private readonly dir: string,
    /** `${NAME...}` in the file: the value each variable has. */
    private readonly variables: Record<string, string>,
    /** Services not run, and the `host:port` each name:port stands for (the MongoDB wire server). */
    private readonly replaced: Record<string, string>,
  ) {
    const base = `127.${10 + Math.floor(Math.random() * 200)}.${1 + Math.floor(Math.random() * 250)}`;
    Object.keys(services).forEach((name, i) => this.addresses.set(name, `${base}.${i + 1}`));
  }

  /** `text` with `${VAR...}` set and every service name replaced by what stands in for it. */
  private resolve(text: string): string {
    let resolved = text.replace(/\$\{(\w+)[^}]*\}/g, (_, variable: string) => {
      if (!(variable in this.variables)) throw new Error(`docker-compose.yml uses \${${variable}}: the test gives it no value`);
      return this.variables[variable]!;
    });
    for (const [name, hostPort] of Object.entries(this.replaced)) resolved = resolved.replace(new RegExp(`\\b${name}:\\d+\\b`, 'g'), hostPort);
    // Longest names first, so redis-primary is not read as a part of another name.
    for (const name of [...this.addresses.keys()].sort((a, b) => b.length - a.length)) {
      resolved = resolved.replace(new RegExp(`(?<![\\w-])${name}(?![\\w-])`, 'g'), this.addresses.get(name)!);
    }
    return resolved;
  }

  /** The command line and environment the service runs with here. */
  commandOf(name: string, root: string): { command: string; args: string[]; env: Record<string, string>; cwd: string } {
    const service = this.services[name]!;
    const address = this.addresses.get(name)!;
    const own = join(this.dir, name);
    mkdirSync(own, { recursive: true });
    const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([key, value]) => [key, this.resolve(String(value))]));
    if (service.build !== undefined) {
      // The image's CMD in this checkout; it listens on its PORT at its own address.
      const [program, ...args] = dockerfileCommand(join(root, service.build, 'Dockerfile'));
      if (program !== 'node') throw new Error(`the Dockerfile's CMD runs ${program}: only node is stood in for`);
      return { command: process.execPath, args, env: { ...env, HOST: address }, cwd: root };
    }
    if (!service.image?.startsWith('redis:')) throw new Error(`${name}: image ${service.image} has no stand-in here`);
    // Its own address for what it sends too (a sentinel announces the address its link to the
    // primary comes from, which would otherwise be 127.0.0.1 for all three).
    const standIn = ['--bind', address, '--bind-source-addr', address, '--protected-mode', 'no'];
    const words = [...(service.entrypoint ?? []), ...(service.command ?? [])].map((word) => this.resolve(word).replaceAll('/tmp/', `${own}/`));
    if (words[0] === 'redis-server') return { command: 'redis-server', args: [...words.slice(1), '--dir', own, ...standIn], env, cwd: own };
    if (words[0] === 'sh' && words[1] === '-c') {
      // A script that ends by exec-ing redis-server: the stand-in's options go on that line.
      const script = words[2]!.replace(/^(\s*exec redis-server .*)$/m, `$1 ${standIn.join(' ')} --dir ${own}`);
      if (script === words[2]) throw new Error(`${name}: its script does not exec redis-server`);
      return { command: 'sh', args: ['-c', script], env, cwd: own };
    }
    throw new Error(`${name}: command ${words.join(' ')} is not stood in for`);
  }

  /** Starts the service; resolves once it printed `readyLine`. */
  async start(name: string, root: string, readyLine: RegExp, timeoutMs = 20_000): Promise<RunningService> {
    const { command, args, env, cwd } = this.commandOf(name, root);
    const server = await startChildServer({ name, command, args, env, cwd, readyLine, timeoutMs, url: '' });
    return {
      name,
      address: this.addresses.get(name)!,
      pid: server.pid,
      output: server.output,
      kill: async () => {
        try {
          process.kill(server.pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
        await server.stop();
      },
    };
  }
}
