import { Redis } from 'ioredis';
import { ConfigError, loadConfig } from './config.js';
import { startApp } from './app.js';
import type { ChildServer } from './embedded/childServer.js';
import { startMongoServer } from './embedded/mongoServer.js';
import { startRedisServer } from './embedded/redisServer.js';
import { createLogger } from './log.js';
import { createCompany } from './metadata/repositories.js';

// `npm run dev`: the server on embedded defaults, for a newcomer's first run.
// When REDIS_URL is unset it starts a private redis-server (data in ./.data/redis, AOF on);
// when MONGODB_URL is unset it starts the in-memory MongoDB wire server. DATA_DIR moves
// ./.data elsewhere (the benchmarks use a temp dir). On first start it
// creates a company and prints the keys to use.

const DEV_SYSTEM_API_SECRET = 'superSecretSystemApi'; // what the official SDKs' test suites send

const env = { ...process.env };
const dataDir = env.DATA_DIR || '.data';
env.SYSTEM_API_SECRET ??= DEV_SYSTEM_API_SECRET;
env.LOG_LEVEL ??= 'warn';
const children: ChildServer[] = [];
const notes: string[] = [];

async function stopChildren(): Promise<void> {
  await Promise.allSettled(children.map((c) => c.stop()));
}

try {
  if (!env.REDIS_URL) {
    const redis = await startRedisServer({ dir: `${dataDir}/redis`, appendOnly: true });
    children.push(redis);
    env.REDIS_URL = redis.url;
    notes.push(`Redis    ${redis.url}  (private redis-server, data in ${dataDir}/redis, AOF on)`);
  }
  if (!env.MONGODB_URL) {
    const mongo = await startMongoServer();
    children.push(mongo);
    env.MONGODB_URL = mongo.url;
    notes.push(`MongoDB  ${mongo.url}  (private in-memory wire server: metadata is lost on restart)`);
    if (!process.env.REDIS_URL) {
      // Metadata starts empty, so ids restart at 1: inventory left in the private Redis by
      // the previous run would belong to events that no longer exist and collide with new ones.
      const redis = new Redis(env.REDIS_URL!);
      if ((await redis.dbsize()) > 0) {
        await redis.flushall();
        notes.push(`         cleared ${dataDir}/redis: its inventory belonged to the previous in-memory metadata`);
      }
      await redis.quit();
    }
  }

  const config = loadConfig(env);
  const app = await startApp(config, createLogger(config.logLevel));
  const { repos } = app.parts;
  let company = await repos.companies.findFirst();
  if (!company) company = (await createCompany(repos, 'Development company')).company;
  const workspace = await repos.workspaces.findById(company.defaultWorkspaceId);

  const base = `http://localhost:${app.port}`;
  console.log(
    [
      `Seat inventory server (development) listening on ${base}`,
      ...notes.map((n) => `  ${n}`),
      '',
      `  Company admin key             ${company.adminKey}`,
      `  Default workspace secret key  ${workspace?.secretKeys[0] ?? '(none)'}`,
      `  System API secret             ${config.systemApiSecret}`,
      '',
      `  Try: curl -u ${company.adminKey}: ${base}/workspaces`,
      '  Ctrl+C stops the server and the servers it started.',
    ].join('\n'),
  );

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const clean = await app.shutdown(config.shutdownTimeoutMs);
    await stopChildren();
    process.exit(clean ? 0 : 1);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
} catch (error) {
  await stopChildren();
  console.error(error instanceof ConfigError ? `configuration error: ${error.message}` : `start-up failed: ${(error as Error).message}`);
  process.exit(1);
}
