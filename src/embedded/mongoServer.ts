import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { startChildServer, type ChildServer } from './childServer.js';
import { freePort } from './freePort.js';

const BINARY_PACKAGE = '@jongodb/memory-server-bin-linux-x64-gnu';

/**
 * An in-memory MongoDB wire server (jongodb, a devDependency) on a free loopback port.
 * Good for development and tests; production uses real MongoDB via MONGODB_URL.
 */
export async function startMongoServer(): Promise<ChildServer> {
  let binary: string;
  try {
    binary = join(dirname(createRequire(import.meta.url).resolve(`${BINARY_PACKAGE}/package.json`)), 'bin', 'jongodb');
  } catch {
    throw new Error(`${BINARY_PACKAGE} is not installed (it is a devDependency: run "npm ci"), or set MONGODB_URL`);
  }
  const port = await freePort();
  return startChildServer({
    name: 'jongodb',
    command: binary,
    args: [`--host=127.0.0.1`, `--port=${port}`],
    readyLine: /JONGODB_URI=/,
    url: `mongodb://127.0.0.1:${port}/?directConnection=true`,
  });
}
