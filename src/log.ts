import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

/** JSON lines on stdout; one line per request at info level (see http/server.ts). */
export function createLogger(level: Config['logLevel']): Logger {
  return pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
}
