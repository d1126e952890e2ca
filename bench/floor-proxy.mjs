// The floor: the least a Node.js streaming reverse proxy can do. node:http in front, undici's `Pool.dispatch` behind
// it with a handler that writes each chunk to the response as it comes (no Readable per reply, no pipe, no
// promise): the key swapped, hop-by-hop headers dropped both ways, the upstream request aborted when the client goes
// away, and backpressure through the handler's return value (false pauses the upstream socket until `drain`).
import { createServer } from "node:http";
import { Pool } from "undici";

const upstream = process.env.BENCH_UPSTREAM_URL;
const key = process.env.BENCH_UPSTREAM_KEY;
// No connection limit, like the gateway's own agent: 1,000 open streams need 1,000 upstream connections.
const pool = new Pool(upstream, { keepAliveTimeout: 60_000 });

// RFC 9110 section 7.6.1, and `host`, which is the upstream's own.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host"]);
const KEY_HEADERS = new Set(["authorization", "x-api-key", "x-goog-api-key"]);

/** The client's headers for the upstream: hop-by-hop dropped, the local key replaced by the upstream's. */
function requestHeaders(raw) {
  const out = {};
  let keyHeader = "authorization";
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (HOP_BY_HOP.has(name)) continue;
    if (KEY_HEADERS.has(name)) keyHeader = name;
    else out[name] = raw[i + 1];
  }
  out[keyHeader] = keyHeader === "authorization" ? `Bearer ${key}` : key;
  return out;
}

/** The upstream's headers for the client (undici hands them over as raw Buffers), hop-by-hop dropped. */
function replyHeaders(raw) {
  const out = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toString("latin1");
    if (!HOP_BY_HOP.has(name.toLowerCase())) out.push(name, raw[i + 1].toString("latin1"));
  }
  return out;
}

const server = createServer((req, res) => {
  let abort;
  res.on("close", () => {
    if (!res.writableFinished) abort?.(new Error("client closed"));
  });
  pool.dispatch(
    { path: req.url, method: req.method, headers: requestHeaders(req.rawHeaders), body: req },
    {
      onConnect(abortRequest) {
        abort = abortRequest;
      },
      onHeaders(statusCode, rawHeaders, resume) {
        res.writeHead(statusCode, replyHeaders(rawHeaders));
        res.on("drain", resume);
        return true;
      },
      onData(chunk) {
        return res.write(chunk);
      },
      onComplete() {
        res.end();
      },
      onError() {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      },
    },
  );
});
server.keepAliveTimeout = 60_000;
// The gateway's listen queue, so a burst of connections costs both the same (Node's default drops past 511).
server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => console.log(`port ${server.address().port}`));
// An exit on SIGTERM (not the default death) lets `node --cpu-prof` write its profile.
process.on("SIGTERM", () => process.exit(0));
