import { loadUws } from '../src/http/uws.js';

// The ceiling: a uWebSockets.js server that reads each request's body and answers with an
// empty body, as book answers (204). What the load generator and this machine can do at
// best with the same requests; every scenario is reported as a ratio to it. Run as a child
// process so it has its own event loop, like the real server.

const port = Number(process.argv[2]);
const empty = Buffer.alloc(0);
const uws = loadUws();
uws
  .App()
  .any('/*', (res) => {
    res.onAborted(() => {});
    // Read (and drop) the request body, as the real server does before answering.
    res.onData((_chunk, isLast) => {
      if (isLast) res.cork(() => res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json').end(empty));
    });
  })
  .listen('127.0.0.1', port, (socket) => {
    if (!socket) {
      console.error(`ceiling: cannot listen on ${port}`);
      process.exit(1);
    }
    console.log('ceiling ready');
  });
