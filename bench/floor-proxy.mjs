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

/**
 * `BENCH_FLOOR_BODY`: how the floor sends the body on, for `bench/ab-builds.mjs`'s floors (issue 53 goal 1: the limit
 * of a gateway that checks the body). `stream` (the default, the floor of the bench): as it comes. `whole`
 * (`floor:whole`): read whole, then sent as one buffer, what any proxy that must see the whole body before it sends
 * costs. `checked` (`floor:checking`): the same, checked first as the gateway checks a passthrough body (its latin1
 * text in 64 KB pieces and `JSON.parse`: `src/server/stages/check-body.ts`), a 400 if it is not JSON.
 */
const BODY = process.env.BENCH_FLOOR_BODY ?? "stream";
const PIECE = 64 * 1024;

function readWhole(req, res) {
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  req.on("end", () => {
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
    if (BODY === "checked") {
      let text = "";
      for (let start = 0; start < body.length; start += PIECE) text += body.toString("latin1", start, Math.min(start + PIECE, body.length));
      try {
        JSON.parse(text);
      } catch {
        res.writeHead(400).end();
        return;
      }
    }
    forward(req, res, body);
  });
}

const server = createServer((req, res) => (BODY === "stream" ? forward(req, res, req) : readWhole(req, res)));

/** The request to the upstream, its body `req` itself (streamed through as it comes) or the bytes read whole. */
function forward(req, res, body) {
  let abort;
  res.on("close", () => {
    if (!res.writableFinished) abort?.(new Error("client closed"));
  });
  pool.dispatch(
    { path: req.url, method: req.method, headers: requestHeaders(req.rawHeaders), body },
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
}
server.keepAliveTimeout = 60_000;
// The gateway's listen queue, so a burst of connections costs both the same (Node's default drops past 511).
server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => console.log(`port ${server.address().port}`));
// An exit on SIGTERM (not the default death) lets `node --cpu-prof` write its profile.
process.on("SIGTERM", () => process.exit(0));
