import { loadUws } from '../src/http/uws.js';

// The ceiling: a uWebSockets.js server that does nothing but answer with a fixed body of
// the size the measured route answers (`?bytes=N` overrides it per request, e.g. 0 for
// routes that answer 204). What the load generator and this machine can do
// at best; every scenario is reported as a ratio to it. Run as a child process so it has
// its own event loop, like the real server.

const port = Number(process.argv[2]);
const bodyBytes = Number(process.argv[3] ?? 0);
const body = Buffer.alloc(bodyBytes, 'x');
const empty = Buffer.alloc(0);
const uws = loadUws();
uws
  .App()
  .any('/*', (res, req) => {
    res.onAborted(() => {});
    const answer = req.getQuery('bytes') === '0' ? empty : body;
    // Read (and drop) any request body, as the real server does before answering.
    res.onData((_chunk, isLast) => {
      if (isLast) res.cork(() => res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json').end(answer));
    });
  })
  .listen('127.0.0.1', port, (socket) => {
    if (!socket) {
      console.error(`ceiling: cannot listen on ${port}`);
      process.exit(1);
    }
    console.log('ceiling ready');
  });
