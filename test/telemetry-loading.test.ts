import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { cliEnv, runCli, spawnCli, waitForOutput } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { chatHeaders, rawRequest } from "./helpers/http.js";
import { packagesLoaded } from "./helpers/loaded-sources.js";
import { startOtlpReceiver } from "./helpers/otlp-receiver.js";

/**
 * SPEC 12: nothing is exported, and no OpenTelemetry module loads, when no endpoint is set; `/metrics` loads
 * prom-client on its first scrape. Issue 52: `/health` is answered without h3 (the dashboard's), which loads on the
 * dashboard's first request. Both are bundled into chunks of dist/ of their own, which a module's banner names. Checked on a real `gateway start` child whose every loaded module is written to a
 * file (`helpers/module-log.mjs`, loaded with `node --import`).
 */

const MODULE_LOG = fileURLToPath(new URL("./helpers/module-log.mjs", import.meta.url));
const KEY = "gw-telemetry-loading-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
const opened = closeAfterEach();
const children: ReturnType<typeof spawnCli>[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) {
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    await exited;
  }
});

/** Starts `gateway start` with the module log; resolves with its URL and a reader of the modules it loaded so far. */
async function startLogged(env: Record<string, string> = {}) {
  const log = join(mkdtempSync(join(tmpdir(), "gateway-modules-")), "modules.txt");
  writeFileSync(log, "");
  const child = spawnCli(["start", "--port", "0", "--quiet", "--no-request-log"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_LOCAL_KEY: KEY, GATEWAY_TEST_MODULE_LOG: log, ...env }), ["--import", MODULE_LOG]);
  children.push(child);
  const [, url] = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  return {
    url: url!,
    /** Stops the gateway (its CommonJS modules are written at exit) and returns every module it loaded. */
    async stop(): Promise<string[]> {
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
      return readFileSync(log, "utf8").split("\n").filter(Boolean);
    },
  };
}

const chat = (url: string) => rawRequest(url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(KEY), body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }) });

describe("what telemetry loads", () => {
  it("with no endpoint, serving requests loads no OpenTelemetry module and no prom-client", async () => {
    const gateway = await startLogged();
    expect((await chat(gateway.url)).status).toBe(200);
    const loaded = packagesLoaded(await gateway.stop());
    // The module log works (undici sent the request); the dashboard and /health (h3) load on their first request.
    expect(loaded).toContain("undici");
    expect(loaded).not.toContain("h3");
    expect(loaded.filter((name) => name.startsWith("@opentelemetry/") || name === "prom-client")).toEqual([]);
  });

  it("the first scrape loads prom-client (and the OpenTelemetry API it requires), never the SDK or an exporter", async () => {
    const gateway = await startLogged();
    expect((await chat(gateway.url)).status).toBe(200);
    const scraped = await rawRequest(gateway.url, { method: "GET", path: "/metrics", headers: { authorization: `Bearer ${KEY}` } });
    expect(scraped.status).toBe(200);
    expect(scraped.body).toContain('gateway_requests_total{format="chat",upstream="default",route="",status_code="200"} 1');
    const loaded = packagesLoaded(await gateway.stop());
    expect(loaded.filter((name) => name.startsWith("@opentelemetry/") || name === "prom-client").sort()).toEqual(["@opentelemetry/api", "prom-client"]);
  });

  // The SDK and its exporters are bundled into dist/ (dev dependencies): this is the export the installed package makes.
  it.each([
    ["http/protobuf", "@opentelemetry/exporter-trace-otlp-proto", "@opentelemetry/exporter-trace-otlp-http", "application/x-protobuf"],
    ["http/json", "@opentelemetry/exporter-trace-otlp-http", "@opentelemetry/exporter-trace-otlp-proto", "application/json"],
  ])("with OTEL_EXPORTER_OTLP_ENDPOINT over %s, the bundled SDK loads before the gateway serves, and each request's span and metrics reach the collector", async (protocol, exporter, other, contentType) => {
    const receiver = opened(await startOtlpReceiver());
    const gateway = await startLogged({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_BSP_SCHEDULE_DELAY: "10", OTEL_METRIC_EXPORT_INTERVAL: "100" });
    expect((await chat(gateway.url)).status).toBe(200);
    await receiver.until(() => receiver.spans.length === 1 && receiver.points.some((point) => point.metric === "gateway.requests"));
    expect(receiver.spans[0]).toMatchObject({ name: "chat m", attributes: { "gen_ai.provider.name": "generic", "gateway.upstream": "default" } });
    expect(new Set(receiver.exports.map((sent) => sent.contentType))).toEqual(new Set([contentType]));
    const loaded = packagesLoaded(await gateway.stop());
    expect(loaded).toEqual(expect.arrayContaining(["@opentelemetry/sdk-trace-base", exporter, "@opentelemetry/sdk-metrics", "prom-client"]));
    expect(loaded).not.toContain(other);
  });

  it("a gRPC protocol is refused at start, before detaching, naming the variable and what to set", async () => {
    const result = await runCli(["start", "--port", "0", "--detach"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }));
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      '✖ OTEL_EXPORTER_OTLP_PROTOCOL is "grpc"; the gateway exports over OTLP/HTTP only.\nℹ Set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf (or http/json) and point the endpoint at the collector\'s HTTP port (4318 by default).\n',
    );
  });
});

describe("what the gateway's own answers load", () => {
  it("/health (GET and HEAD) loads no h3; the dashboard's first request loads it, and a WebSocket upgrade is served", async () => {
    const healthOnly = await startLogged();
    const health = await rawRequest(healthOnly.url, { method: "GET", path: "/health" });
    expect([health.status, health.headers["content-type"], health.headers["cache-control"], JSON.parse(health.body).status]).toEqual([200, "application/json", "no-store", "ok"]);
    const head = await rawRequest(healthOnly.url, { method: "HEAD", path: "/health" });
    expect([head.status, head.body]).toEqual([200, ""]);
    expect(packagesLoaded(await healthOnly.stop())).not.toContain("h3");

    const gateway = await startLogged();
    expect((await rawRequest(gateway.url, { method: "GET", path: "/ui/api/summary" })).status).toBe(401);
    const socket = new WebSocket(`${gateway.url.replace("http", "ws")}/v1/responses`, { headers: { authorization: `Bearer ${KEY}` } });
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    const closed = once(socket, "close");
    socket.close();
    await closed;
    expect(packagesLoaded(await gateway.stop()).filter((name) => name === "h3" || name === "ws").sort()).toEqual(["h3", "ws"]);
  });
});
