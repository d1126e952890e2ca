// The previous floor, kept as a reference row: the same proxy as floor-proxy.mjs, written the usual way, with
// undici's `Pool.request` (a Readable per reply) and `body.pipe(res)`. What it costs over the dispatch floor is
// what a Readable and a pipe cost per request.
import { createServer } from "node:http";
import { Pool } from "undici";

const upstream = process.env.BENCH_UPSTREAM_URL;
const key = process.env.BENCH_UPSTREAM_KEY;
// No connection limit, like the gateway's own agent: 1,000 open streams need 1,000 upstream connections.
const pool = new Pool(upstream, { keepAliveTimeout: 60_000 });

const server = createServer((req, res) => {
  const headers = { ...req.headers };
  delete headers.host;
  delete headers.connection;
  if (headers["x-api-key"]) headers["x-api-key"] = key;
  else if (headers["x-goog-api-key"]) headers["x-goog-api-key"] = key;
  else headers.authorization = `Bearer ${key}`;
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  pool
    .request({ path: req.url, method: req.method, headers, body: req, signal: controller.signal })
    .then(({ statusCode, headers: h, body }) => {
      delete h.connection;
      delete h["keep-alive"];
      delete h["transfer-encoding"];
      res.writeHead(statusCode, h);
      body.pipe(res);
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
});
server.keepAliveTimeout = 60_000;
// The gateway's listen queue, so a burst of connections costs both the same (Node's default drops past 511).
server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => console.log(`port ${server.address().port}`));
// An exit on SIGTERM (not the default death) lets `node --cpu-prof` write its profile.
process.on("SIGTERM", () => process.exit(0));
