import { once } from "node:events";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Client } from "undici";
import { describe, expect, it } from "vitest";
import { SENT_ONCE_FROM, sentOnce } from "../src/upstream/sent-once.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { completion, startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { messagesHeaders, rawRequest } from "./helpers/http.js";

// Issue 53, what a request holds to the end of its reply: undici's Request keeps the body it was given until the
// reply's last byte, so a long conversation's bytes lived as long as its streamed reply. A body of SENT_ONCE_FROM
// bytes or more goes as a stream that lets go of them once written (src/upstream/sent-once.ts), with its length.

setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;
/** Two full collections a turn apart: V8 frees array buffers' memory after a collection, not in it. */
async function gc(): Promise<void> {
  for (let i = 0; i < 2; i++) {
    collect();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A server that reads each request's body whole, sends the reply's headers and first bytes, and ends it only when told. */
async function holdingServer() {
  const ends: (() => void)[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: 1\n\n");
      ends.push(() => res.end("data: 2\n\n"));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  // A client each: one connection's second request would wait for the first reply, which the test holds open.
  const clients: Client[] = [];
  return {
    client: () => clients[clients.push(new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)) - 1]!,
    endAll: () => ends.splice(0).forEach((end) => end()),
    close: async () => {
      ends.splice(0).forEach((end) => end());
      await Promise.all(clients.map((client) => client.close()));
      server.close();
    },
  };
}

/** Sends a body of 1 MB made here, and answers whether it is still alive once its reply has started (and not ended). */
async function aliveWhileReplying(client: Client, wrap: (bytes: Buffer) => Buffer | ReturnType<typeof sentOnce>): Promise<{ alive: boolean; reply: Promise<string> }> {
  const { ref, replied } = (() => {
    const bytes = Buffer.alloc(1024 * 1024, 0x61);
    return { ref: new WeakRef(bytes), replied: client.request({ path: "/", method: "POST", headers: { "content-length": String(bytes.length) }, body: wrap(bytes) }) };
  })();
  const { body } = await replied;
  await gc();
  return { alive: ref.deref() !== undefined, reply: body.text() };
}

describe("a body undici sends once", () => {
  const opened = closeAfterEach();

  it("is let go of once written, while its reply still streams; a Buffer given as it is lives to the reply's end", async () => {
    const server = opened(await holdingServer());
    const asIs = await aliveWhileReplying(server.client(), (bytes) => bytes);
    const once = await aliveWhileReplying(server.client(), sentOnce);
    expect([asIs.alive, once.alive]).toEqual([true, false]);
    server.endAll();
    expect(await Promise.all([asIs.reply, once.reply])).toEqual(["data: 1\n\ndata: 2\n\n", "data: 1\n\ndata: 2\n\n"]);
  });
});

describe("a long body through the gateway", () => {
  const opened = closeAfterEach();
  const long = (model: string) => Buffer.from(JSON.stringify({ model, max_tokens: 8, messages: [{ role: "user", content: `héllo → 日本 🎉 ${"x".repeat(SENT_ONCE_FROM)}` }] }));

  it("reaches each upstream it tries byte for byte, with its length and not chunked", async () => {
    const busy = opened(await startFakeUpstream({ script: () => ({ status: 503, json: { error: { message: "overloaded" } } }) }));
    const spare = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "from spare" }) }) }));
    const file = { upstream: "busy", retries: 0, upstreams: { busy: { url: busy.url, key: "none", fallback: ["spare"] }, spare: { url: spare.url, key: "none" } } };
    const gateway = opened(await startTestGateway(undefined, { file }));
    const bytes = long("m");
    const res = await rawRequest(gateway.url, { method: "POST", path: "/anthropic/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: bytes });
    expect(res.status).toBe(200);
    for (const got of [busy.last(), spare.last()]) {
      expect(got.raw.equals(bytes)).toBe(true);
      expect([got.headers["content-length"], got.headers["transfer-encoding"]]).toEqual([String(bytes.length), undefined]);
    }
  });

  it("is not held by the gateway while its streamed reply is still open", async () => {
    let open!: () => void;
    const held = new Promise<void>((resolve) => (open = resolve));
    const upstream = opened(await startFakeUpstream({ script: () => ({ chunks: ["event: ping\ndata: {\"type\":\"ping\"}\n\n", held, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"] }) }));
    const gateway = opened(await startTestGateway(undefined, { file: { upstream: "up", upstreams: { up: { url: upstream.url, key: "none" } } } }));
    const bytes = long("m");
    const { hostname, port } = new URL(gateway.url);
    // Resolves at the reply's headers: the gateway has sent the body and holds the reply open.
    const replying = () =>
      new Promise<IncomingMessage>((resolve, reject) => {
        const req = request({ hostname, port, method: "POST", path: "/anthropic/v1/messages", headers: messagesHeaders(LOCAL_KEY), agent: false }, resolve);
        req.on("error", reject);
        req.end(bytes);
      });
    await gc();
    const before = process.memoryUsage().arrayBuffers;
    const replies = await Promise.all([replying(), replying(), replying(), replying()]);
    await gc();
    // What this process holds of the four bodies besides the gateway (the fake upstream keeps what it received, and
    // node:http its reads): 8 copies measured; a gateway that held each body to its reply's end held 4 more (12).
    const grown = process.memoryUsage().arrayBuffers - before;
    open();
    await Promise.all(replies.map((res) => res.resume() && once(res, "end")));
    expect(upstream.received.every((got) => got.raw.equals(bytes))).toBe(true);
    expect(grown / bytes.length).toBeLessThan(10);
  });

  it("goes translated with its length and not chunked", async () => {
    const upstream = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "hi" }) }) }));
    const file = { upstream: "chat", upstreams: { chat: { url: upstream.url, key: "none", formats: ["chat"] } } };
    const gateway = opened(await startTestGateway(undefined, { file }));
    const res = await rawRequest(gateway.url, { method: "POST", path: "/anthropic/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: long("m") });
    expect(res.status).toBe(200);
    const got = upstream.last();
    expect(got.raw.length).toBeGreaterThan(SENT_ONCE_FROM);
    expect([got.headers["content-length"], got.headers["transfer-encoding"]]).toEqual([String(got.raw.length), undefined]);
    expect(got.body).toMatchObject({ model: "m", messages: [{ role: "user", content: `héllo → 日本 🎉 ${"x".repeat(SENT_ONCE_FROM)}` }] });
  });
});
