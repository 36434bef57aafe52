import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Redis } from 'ioredis';
import { isCluster, unavailable, type RedisClient } from './redis.js';
import RedisParser from 'redis-parser';

// Reads with replies of 100,000 elements (every record of a big event, for reports:
// EventObjectStore.readWhole) on a connection of their own, decoded straight into strings.
// ioredis decodes every element of a reply into a Buffer and then into a string: for a
// summary of 100,000 seats that was some 40 MB of garbage, twice the CPU, and scavenges
// copying it that made the slow tail of summaries (docs/reports.md, "Big events").
// Here redis-parser (the parser ioredis itself uses) runs in string mode.
//
// One connection per read, made with the settings of the ioredis connection it stands in
// for (host, port, user, password, database, TLS, key prefix) and closed after it: reports
// run one at a time per process, in the report thread (src/services/reportLane.ts), so
// there is nothing to pool, and a connection that fails takes nothing else down.
// Standalone Redis only: on Redis Cluster the read has to go to the node of the event's
// slot, and follow it while the slot moves, which ioredis does; there the reads go through
// ioredis (ClusterBulkReads).

/** A command of a read: its name, its key (the connection's prefix is added), the rest. */
export type BulkCommand = [name: string, key: string, ...args: (string | number)[]];

const resp = (args: (string | number)[]): string => `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(String(arg))}\r\n${arg}\r\n`).join('')}`;

/** Reads of many elements, all of one slot, as one transaction. */
export interface BulkReads {
  /** The replies of the commands, run as one MULTI/EXEC: one moment of the data. */
  transaction(commands: BulkCommand[]): Promise<unknown[]>;
}

/** The bulk reads for a connection: a parser of our own on one Redis, ioredis's on a cluster. */
export function bulkReadsFor(redis: RedisClient, timeoutMs: number): BulkReads {
  return isCluster(redis) ? new ClusterBulkReads(redis) : new BulkReader(redis, timeoutMs);
}

/** On a cluster: a MULTI through ioredis, which sends it to the slot's node and follows MOVED and ASK. */
class ClusterBulkReads implements BulkReads {
  constructor(private readonly redis: RedisClient) {}

  async transaction(commands: BulkCommand[]): Promise<unknown[]> {
    const multi = this.redis.multi();
    for (const [name, key, ...args] of commands) multi.call(name, key, ...args);
    const replies = await multi.exec();
    if (!replies) throw new Error('Redis aborted the transaction of a bulk read');
    return replies.map(([error, value]) => {
      if (error) throw error;
      return value;
    });
  }
}

export class BulkReader implements BulkReads {
  constructor(
    /** The connection whose settings the reads use. */
    private readonly redis: Redis,
    /** How long a read may take before it fails (503 to the client). */
    private readonly timeoutMs: number,
  ) {}

  async transaction(commands: BulkCommand[]): Promise<unknown[]> {
    const prefix = this.redis.options.keyPrefix ?? '';
    const setup = this.setupCommands();
    const sent = [...setup, ['MULTI'], ...commands.map(([name, key, ...args]) => [name, `${prefix}${key}`, ...args]), ['EXEC']];
    const replies = await this.exchange(sent);
    const exec = replies[replies.length - 1];
    if (!Array.isArray(exec)) throw new Error('Redis aborted the transaction of a bulk read');
    for (const reply of exec) if (reply instanceof Error) throw reply;
    return exec;
  }

  /** AUTH and SELECT as the ioredis connection does them. */
  private setupCommands(): (string | number)[][] {
    const { username, password, db } = this.redis.options;
    const setup: (string | number)[][] = [];
    if (password) setup.push(username ? ['AUTH', username, password] : ['AUTH', password]);
    if (db) setup.push(['SELECT', db]);
    return setup;
  }

  /** Sends the commands in one write and collects one reply each; any error reply fails the read. */
  private exchange(commands: (string | number)[][]): Promise<unknown[]> {
    const { tls } = this.redis.options;
    // Through sentinels the options name no node: the primary is the one the connection reached.
    const stream = this.redis.options.sentinels ? this.redis.stream : undefined;
    const host = stream ? stream.remoteAddress : this.redis.options.host;
    const port = stream ? stream.remotePort : this.redis.options.port;
    if (this.redis.options.sentinels && (host === undefined || port === undefined)) return Promise.reject(unavailable('no connection to the primary for a bulk read'));
    return new Promise((resolve, reject) => {
      const replies: unknown[] = [];
      let socket: Socket;
      const fail = (error: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(error);
      };
      const timer = setTimeout(() => fail(unavailable(`a bulk read got no answer in ${this.timeoutMs} ms`)), this.timeoutMs);
      const parser = new RedisParser({
        returnBuffers: false,
        returnReply: (reply) => {
          replies.push(reply);
          if (replies.length < commands.length) return;
          clearTimeout(timer);
          socket.end();
          resolve(replies);
        },
        returnError: (error) => fail(error),
        returnFatalError: (error) => fail(error),
      });
      const request = commands.map(resp).join('');
      const onConnect = () => socket.write(request);
      socket = tls ? tlsConnect({ host, port, ...tls }, onConnect) : netConnect({ host: host ?? '127.0.0.1', port: port ?? 6379 }, onConnect);
      socket.on('data', (data: Buffer) => parser.execute(data));
      socket.on('error', (error) => fail(unavailable(`no connection for a bulk read (${error.message})`)));
      socket.on('close', () => {
        if (replies.length < commands.length) fail(unavailable('the connection of a bulk read closed'));
      });
    });
  }
}
