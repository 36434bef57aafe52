// Types for redis-parser 3 (the RESP parser ioredis 5 uses; it ships none): what
// src/inventory/bulkReader.ts uses of it.
declare module 'redis-parser' {
  interface ParserOptions {
    returnReply: (reply: unknown) => void;
    returnError: (error: Error) => void;
    returnFatalError?: (error: Error) => void;
    returnBuffers?: boolean;
    stringNumbers?: boolean;
  }
  export default class RedisParser {
    constructor(options: ParserOptions);
    execute(data: Buffer): void;
  }
}
