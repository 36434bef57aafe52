import { parentPort, workerData } from 'node:worker_threads';
import { composeReaders, connectReaders, type ReaderConnections } from './readers.js';
import { HistoryFollower, historyRange } from './inventory/historyFollower.js';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createLogger } from './log.js';
import { StreamFollowers, type FromStream, type ToStream } from './services/streamFollowers.js';
import { lowerThisThreadPriority } from './util/threadCalls.js';

// The status stream's thread (docs/status-stream.md, "The stream thread"): one per server
// process, started by src/services/streamSockets.ts. It follows the events that have
// subscribers in this process and makes their frames; the server's thread holds the sockets
// and hands them the frames. It runs below the sale's priority and on connections of its own.

const config = workerData as Config;
lowerThisThreadPriority(config.readerThreadNice);
const logger = createLogger(config.logLevel).child({ thread: 'status-stream' });
const post = (message: FromStream) => parentPort!.postMessage(message);

// Messages that arrive before the connections are up wait for them, in order.
const early: ToStream[] = [];
let receive = (message: ToStream): void => void early.push(message);
parentPort!.on('message', (message: ToStream) => receive(message));

const { connections } = await connectReaders(config, logger);
const followers = composeStreamFollowers(connections, config, post, logger);
receive = (message) => followers.receive(message);
for (const message of early.splice(0)) followers.receive(message);

/** The status stream's followers, in the stream's thread (src/streamThread.ts), posting their frames to the server's thread. */
function composeStreamFollowers(connections: ReaderConnections, config: Pick<Config, 'redisTimeoutMs' | 'statusStream'>, post: (message: FromStream) => void, logger?: Logger): StreamFollowers {
  const { repos, scripts, eventObjects, catalog } = composeReaders(connections, config, { bestAvailable: false });
  return new StreamFollowers(
    { catalog, objects: eventObjects, follow: (loaded) => new HistoryFollower(scripts, loaded.event), range: historyRange(connections.redis, repos.statusChanges), post, logger },
    config.statusStream,
  );
}

