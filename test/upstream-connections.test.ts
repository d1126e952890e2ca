import { createServer, type Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { createDispatcher } from "../src/upstream/create-dispatcher.js";
import { dispatchReply } from "../src/upstream/dispatch-reply.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders } from "./helpers/http.js";

/** Streams aborted at once: far more than undici's reconnect after an abort misses by chance (it did about half). */
const STREAMS = 30;

/** An upstream whose streams send three events and then wait for ever, and which never closes an idle connection itself. */
async function holdingUpstream(): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream({ keepAliveMs: 600_000 });
  upstream.behaviour.beforeEvent = (index) => (index < 3 ? Promise.resolve() : new Promise<void>(() => undefined));
  return upstream;
}

/** `STREAMS` messages streams at once, each aborted by its client once its first bytes came. */
async function abortedStreams(gatewayUrl: string): Promise<void> {
  await Promise.all(
    Array.from({ length: STREAMS }, async () => {
      const controller = new AbortController();
      const body = JSON.stringify({ model: "m", max_tokens: 9, stream: true, messages: [{ role: "user", content: "one two three four" }] });
      const response = await fetch(`${gatewayUrl}/v1/messages`, { method: "POST", headers: messagesHeaders(LOCAL_KEY), body, signal: controller.signal });
      expect(response.status).toBe(200);
      expect((await response.body!.getReader().read()).done).toBe(false);
      controller.abort();
    }),
  );
}

/** Every stream the upstream began was aborted by the gateway, then no connection to it is left open. */
async function expectAllClosed(upstream: FakeUpstream): Promise<void> {
  expect(upstream.received).toHaveLength(STREAMS);
  await expect.poll(() => upstream.received.filter((r) => r.abortedAt !== undefined).length).toBe(STREAMS);
  await expect.poll(() => upstream.openSockets(), { timeout: 2_000 }).toBe(0);
}

/** An HTTP proxy that tunnels every CONNECT to `target`, whatever host it names. */
async function startTunnel(target: number): Promise<{ url: string; tunnelled: string[]; close(): Promise<void> }> {
  const tunnelled: string[] = [];
  const server: Server = createServer((_req, res) => res.writeHead(405).end());
  server.on("connect", (req, client: Socket, head: Buffer) => {
    tunnelled.push(req.url!);
    const upstream = connect(target, "127.0.0.1", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      client.pipe(upstream).pipe(client);
    });
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnelled,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("connections to the upstream", () => {
  const opened = closeAfterEach();

  it.each([
    ["passthrough", ["chat", "messages"]],
    ["translated", ["chat"]],
  ])("%s: streams aborted by their clients close their upstream connections, and leave none open after them", async (_, formats) => {
    const upstream = opened(await holdingUpstream());
    const gateway = opened(await startTestGateway(undefined, { file: { upstream: "u", upstreams: { u: { url: upstream.url, formats } } } }));
    await abortedStreams(gateway.url);
    await expectAllClosed(upstream);
  });

  describe("through an HTTP proxy's tunnel", () => {
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy, NO_PROXY: process.env.NO_PROXY, no_proxy: process.env.no_proxy };
    afterEach(() => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });

    // The configuration takes plain http:// for loopback hosts only, and those never go through a proxy: the
    // upstream layer is driven directly here, with a name that is not loopback, so that HTTP_PROXY applies.
    it("streams aborted by their callers leave no connection open", async () => {
      const upstream = opened(await holdingUpstream());
      const tunnel = opened(await startTunnel(upstream.port));
      for (const name of Object.keys(saved)) delete process.env[name];
      process.env.HTTP_PROXY = tunnel.url;
      const origin = `http://upstream.test:${upstream.port}`;
      const dispatcher = await createDispatcher(new URL(origin), { connectMs: 5_000, firstByteMs: 30_000, idleMs: 30_000 });
      opened({ close: () => dispatcher.destroy() });
      const body = JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "one two three four" }] });
      const headers = { authorization: `Bearer ${FAKE_UPSTREAM_KEY}`, "content-type": "application/json" };
      await Promise.all(
        Array.from({ length: STREAMS }, async () => {
          const controller = new AbortController();
          const reply = await dispatchReply(dispatcher, { origin, path: "/v1/chat/completions", method: "POST", headers, body }, controller.signal);
          expect(reply.statusCode).toBe(200);
          const first = await new Promise<string>((resolve, reject) => reply.body.relay({ data: (chunk) => (resolve(String(chunk)), true), end: () => resolve(""), error: reject }));
          expect(first).toMatch(/^data: /);
          controller.abort(new Error("the caller went away"));
        }),
      );
      await expectAllClosed(upstream);
      expect(tunnel.tunnelled.length).toBeGreaterThanOrEqual(STREAMS);
      expect(new Set(tunnel.tunnelled)).toEqual(new Set([`upstream.test:${upstream.port}`]));
    });
  });

  it("a connection whose reply completed carries the next request", async () => {
    const upstream = opened(await startFakeUpstream({ keepAliveMs: 600_000 }));
    const gateway = opened(await startTestGateway(upstream.url));
    for (const text of ["first", "second"]) {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", messages: [{ role: "user", content: text }] }) });
      expect(await response.json()).toMatchObject({ choices: [{ message: { content: `fake: ${text}` } }] });
    }
    expect(upstream.received).toHaveLength(2);
    expect(upstream.openSockets()).toBe(1);
  });
});
