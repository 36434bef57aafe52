import { Redis } from 'ioredis';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from './config.js';
import { startApp } from './app.js';
import type { ChildServer } from './embedded/childServer.js';
import { startMongoServer } from './embedded/mongoServer.js';
import { startRedisServer } from './embedded/redisServer.js';
import { createLogger } from './log.js';
import { connectMongo } from './metadata/mongo.js';
import { createCompany, repositories, type Repositories } from './metadata/repositories.js';
import { runServerProcesses } from './serverProcesses.js';
import { bookingCommand, ensureSample, SAMPLE_CHART_KEY, SAMPLE_EVENT_KEY, sampleWanted } from './devSample.js';

// `npm run dev`: the server on embedded defaults, for a newcomer's first run.
// When REDIS_URL (and REDIS_CLUSTER_NODES) is unset it starts a private redis-server (data
// in ./.data/redis, AOF on);
// when MONGODB_URL is unset it starts the in-memory MongoDB wire server. DATA_DIR moves
// ./.data elsewhere (the benchmarks use a temp dir). On first start it
// creates a company, the sample chart and an event on it (src/devSample.ts; DEV_SAMPLE=off
// leaves these two out), and prints the keys to use and a command that books a seat.

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
  const withSample = sampleWanted(env.DEV_SAMPLE);
  const ownRedis = !env.REDIS_URL && !env.REDIS_CLUSTER_NODES;
  if (ownRedis) {
    const redis = await startRedisServer({ dir: `${dataDir}/redis`, appendOnly: true });
    children.push(redis);
    env.REDIS_URL = redis.url;
    notes.push(`Redis    ${redis.url}  (private redis-server, data in ${dataDir}/redis, AOF on)`);
  }
  if (!env.MONGODB_URL) {
    const mongo = await startMongoServer();
    children.push(mongo);
    env.MONGODB_URL = mongo.url;
    // The bench finds its server's own MongoDB by this line (bench/lib/devHistory.ts).
    notes.push(`MongoDB  ${mongo.url}  (private in-memory wire server: metadata is lost on restart)`);
    if (ownRedis) {
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
  const logger = createLogger(config.logLevel);
  const server = config.workers > 1 ? await serverProcesses(config, logger) : await oneServer(config, logger);
  const { company, workspace } = await firstCompany(server.repos);

  // Where this machine reaches the server: a wildcard address is reached through localhost.
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
  const base = `http://${host}:${server.port}`;
  const secretKey = workspace?.secretKeys[0];
  const sample = withSample && secretKey !== undefined;
  if (sample) await ensureSample(base, secretKey);
  console.log(
    [
      `Seat inventory server (development) listening on ${base}${config.workers > 1 ? ` (${config.workers} server processes)` : ''}`,
      ...notes.map((n) => `  ${n}`),
      '',
      `  Company admin key             ${company.adminKey}`,
      `  Default workspace secret key  ${secretKey ?? '(none)'}`,
      `  System API secret             ${config.systemApiSecret}`,
      '',
      ...(sample
        ? [
            `  Sample chart ${SAMPLE_CHART_KEY} (rows A to D, seats 1 to 8; GA1) and event ${SAMPLE_EVENT_KEY}. Book seat A-1:`,
            `  ${bookingCommand(base, secretKey)}`,
          ]
        : [`  Try: curl -u ${company.adminKey}: ${base}/workspaces`]),
      `  Box office (a page to see and sell an event live; type the workspace secret key): ${base}/box-office`,
      '  Ctrl+C stops the server and the servers it started.',
    ].join('\n'),
  );

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const clean = await server.stop();
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

interface DevServer {
  port: number;
  repos: Repositories;
  stop(): Promise<boolean>;
}

/** The server in this process. */
async function oneServer(config: Config, logger: Logger): Promise<DevServer> {
  const app = await startApp(config, logger);
  return { port: app.port, repos: app.parts.repos, stop: () => app.shutdown(config.shutdownTimeoutMs) };
}

/** WORKERS=N: N server processes on one port (src/serverProcesses.ts); this one keeps a metadata connection for the banner. */
async function serverProcesses(config: Config, logger: Logger): Promise<DevServer> {
  const metadata = await connectMongo(config.mongodbUrl, config.mongodbDb);
  const script = fileURLToPath(new URL('./main.js', import.meta.url));
  const processes = await runServerProcesses({ count: config.workers, port: config.port, script, env, logger });
  await processes.ready;
  return {
    port: processes.port,
    repos: repositories(metadata.db),
    async stop() {
      const clean = await processes.stop('SIGTERM');
      await metadata.client.close();
      return clean;
    },
  };
}

/** The company of an earlier run, or a new one. */
async function firstCompany(repos: Repositories) {
  const company = (await repos.companies.findFirst()) ?? (await createCompany(repos, 'Development company')).company;
  return { company, workspace: await repos.workspaces.findById(company.defaultWorkspaceId) };
}
