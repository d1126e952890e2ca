import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { cliEnv, spawnCli, waitForOutput } from "./helpers/cli.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, tempConfigDir } from "./helpers/gateway.js";
import { chatHeaders } from "./helpers/http.js";

/** An HTTP proxy that records every CONNECT and plain request, and refuses them all with 403. */
async function startRefusingProxy() {
  const seen: { method: string; target: string; headers: IncomingHttpHeaders; raw: string }[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method!, target: req.url!, headers: req.headers, raw: req.rawHeaders.join("\n") });
    res.writeHead(403).end();
  });
  server.on("connect", (req, socket) => {
    seen.push({ method: "CONNECT", target: req.url!, headers: req.headers, raw: req.rawHeaders.join("\n") });
    socket.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe("proxy environment variables", () => {
  let proxy: Awaited<ReturnType<typeof startRefusingProxy>>;
  let upstream: FakeUpstream | undefined;
  const children: ReturnType<typeof spawnCli>[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    await proxy.close();
    await upstream?.close();
    upstream = undefined;
  });

  async function gatewayWith(upstreamUrl: string, env: Record<string, string>): Promise<string> {
    const configDir = tempConfigDir({ retries: 0, timeouts: { connectMs: 2_000 } });
    const child = spawnCli(["start", "--port", "0", "--upstream", upstreamUrl], cliEnv({ GATEWAY_CONFIG_DIR: configDir, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY, ...env }));
    children.push(child);
    const [, url] = (await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/)) as unknown as [string, string];
    return url;
  }

  const chat = (url: string) =>
    fetch(`${url}/v1/chat/completions`, { method: "POST", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }) });

  it("tunnels an https upstream through HTTPS_PROXY, and the proxy never sees the key", async () => {
    proxy = await startRefusingProxy();
    const url = await gatewayWith("https://api.example.test", { HTTPS_PROXY: proxy.url });
    const response = await chat(url);
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      error: {
        message: "The HTTP proxy (HTTPS_PROXY) refused the tunnel to https://api.example.test with status 403. Check the proxy, or add the upstream's host to NO_PROXY.",
        type: "api_error",
        param: null,
        code: "upstream_error",
      },
    });
    expect(proxy.seen).toHaveLength(1);
    expect(proxy.seen[0]).toMatchObject({ method: "CONNECT", target: "api.example.test:443" });
    expect(proxy.seen[0]!.raw).not.toContain(FAKE_UPSTREAM_KEY);
    expect(proxy.seen[0]!.raw).not.toContain(LOCAL_KEY);
  });

  it("goes direct for a host in NO_PROXY", async () => {
    proxy = await startRefusingProxy();
    const url = await gatewayWith("https://api.example.test", { HTTPS_PROXY: proxy.url, NO_PROXY: "example.test" });
    const response = await chat(url);
    // api.example.test does not resolve: the direct attempt fails on its own, without the proxy
    expect([502, 504]).toContain(response.status);
    expect(proxy.seen).toHaveLength(0);
  });

  it("never sends a loopback upstream through the proxy", async () => {
    proxy = await startRefusingProxy();
    upstream = await startFakeUpstream();
    const url = await gatewayWith(upstream.url, { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, ALL_PROXY: proxy.url });
    const response = await chat(url);
    expect(response.status).toBe(200);
    expect(upstream.received).toHaveLength(1);
    expect(proxy.seen).toHaveLength(0);
  });
});
