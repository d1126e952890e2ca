import { createServer, type Socket } from "node:net";
import { once } from "node:events";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { loadConfig, otlpSettings, type OtlpProtocol, type OtlpSettings } from "../src/config/index.js";
import { clientName } from "../src/request-log/client-name.js";
import { createExportWarnings, WARNING_INTERVAL_MS } from "../src/telemetry/otlp/export-warnings.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { completion, FAKE_UPSTREAM_KEY, startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir } from "./helpers/gateway.js";
import { startOtlpReceiver } from "./helpers/otlp-receiver.js";

/**
 * SPEC 12, Traces and metrics over OTLP, through a real gateway, a real upstream and a collector on loopback that
 * decodes what the OpenTelemetry SDK sent: one span per request with the GenAI attributes, the child of the client's
 * `traceparent`, the gateway's own `traceparent` upstream, the metrics, no prompt, reply or key; a collector that is
 * down or hangs costs a warning, never a request.
 */

const opened = closeAfterEach();

const CLIENT_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CLIENT_SPAN = "b7ad6b7169203331";
const PROMPT = "the secret plans of the prompt";
const REPLY = "the secret words of the reply";

const settingsFor = (url: string, protocol: OtlpProtocol, more: Partial<OtlpSettings> = {}): OtlpSettings => ({
  traces: { url: `${url}/v1/traces`, protocol, headers: { "x-collector-token": "collector-token-1234" } },
  metrics: { url: `${url}/v1/metrics`, protocol, headers: { "x-collector-token": "collector-token-1234" } },
  serviceName: "gateway",
  metricIntervalMs: 60_000,
  spanDelayMs: 5_000,
  ...more,
});

describe.each<OtlpProtocol>(["http/protobuf", "http/json"])("OTLP export over %s", (protocol) => {
  it("sends one span per request with the GenAI attributes, the client's trace as its parent, its own traceparent upstream, and the metrics", async () => {
    const receiver = opened(await startOtlpReceiver());
    const upstream = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: REPLY }) }) }));
    const gateway = await startTestGateway(undefined, { file: { upstreams: { team: { url: upstream.url, kind: "vllm" } } }, otlp: settingsFor(receiver.url, protocol) });
    opened(gateway);
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    await openai.chat.completions.create({ model: "qwen-7b", max_tokens: 64, messages: [{ role: "user", content: PROMPT }] }, { headers: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` } });
    await openai.chat.completions.create({ model: "qwen-7b", messages: [{ role: "user", content: PROMPT }] });
    // Closing flushes the batch of spans and makes a last metrics export.
    await gateway.close();

    expect(receiver.spans).toHaveLength(2);
    const [child, root] = receiver.spans as [(typeof receiver.spans)[0], (typeof receiver.spans)[0]];
    const [first, second] = gateway.records;
    expect(child.traceId).toBe(CLIENT_TRACE);
    expect(child.parentSpanId).toBe(CLIENT_SPAN);
    expect(root.traceId).not.toBe(CLIENT_TRACE);
    expect(root.parentSpanId).toBe("");
    // The upstream was told each span as its parent, in place of the client's.
    expect(upstream.received.map((r) => r.headers.traceparent)).toEqual([`00-${CLIENT_TRACE}-${child.spanId}-01`, `00-${root.traceId}-${root.spanId}-01`]);
    expect(child.name).toBe("chat qwen-7b");
    expect(child.kind).toBe(3);
    expect(child.resource["service.name"]).toBe("gateway");
    expect(child.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "vllm",
      "gen_ai.request.model": "qwen-7b",
      "gen_ai.response.model": "qwen-7b",
      "gen_ai.request.max_tokens": 64,
      "gen_ai.request.stream": false,
      "gen_ai.usage.input_tokens": first!.inputTokens,
      "gen_ai.usage.output_tokens": first!.outputTokens,
      "server.address": "127.0.0.1",
      "http.response.status_code": 200,
      "gateway.upstream": "team",
      "gateway.format": "chat",
      "gateway.upstream_format": "chat",
      "gateway.cost_usd": 0,
      "gateway.client": clientName(first!.userAgent),
      "gateway.request_id": first!.requestId,
    });
    expect(root.attributes["gateway.request_id"]).toBe(second!.requestId);
    expect(root.attributes["gen_ai.request.max_tokens"]).toBeUndefined();

    const usage = receiver.points.filter((p) => p.metric === "gen_ai.client.token.usage" && p.attributes["gen_ai.token.type"] === "input");
    expect(usage).toEqual([
      {
        metric: "gen_ai.client.token.usage",
        unit: "{token}",
        attributes: { "gen_ai.operation.name": "chat", "gen_ai.provider.name": "vllm", "gen_ai.request.model": "qwen-7b", "gen_ai.response.model": "qwen-7b", "gen_ai.token.type": "input" },
        count: 2,
        sum: first!.inputTokens! + second!.inputTokens!,
      },
    ]);
    expect(receiver.points.find((p) => p.metric === "gateway.requests")).toMatchObject({ attributes: { format: "chat", upstream: "team", route: "", status_code: "200" }, value: 2 });
    expect(receiver.points.find((p) => p.metric === "gateway.inflight.requests")).toMatchObject({ value: 0 });

    // The collector's own header went with every export; no prompt, reply or key ever did.
    expect(new Set(receiver.exports.map((e) => e.headers["x-collector-token"]))).toEqual(new Set(["collector-token-1234"]));
    expect(new Set(receiver.exports.map((e) => e.contentType))).toEqual(new Set([protocol === "http/json" ? "application/json" : "application/x-protobuf"]));
    const sent = Buffer.concat(receiver.exports.map((e) => e.raw)).toString("latin1");
    for (const secret of [PROMPT, REPLY, LOCAL_KEY, FAKE_UPSTREAM_KEY]) expect(sent).not.toContain(secret);
  });
});

describe("a span's output cap", () => {
  it("is the client's max_tokens on a translated route too, and on a long passthrough body, though the gateway let go of the body before the reply", async () => {
    const receiver = opened(await startOtlpReceiver());
    const upstream = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: REPLY }) }) }));
    const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { team: { url: upstream.url, kind: "vllm", formats: ["chat"] } } }, otlp: settingsFor(receiver.url, "http/json") }));
    await new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 }).messages.create({ model: "qwen-7b", max_tokens: 48, messages: [{ role: "user", content: PROMPT }] });
    // Over 1 MiB: sent upstream as a stream that lets go of its bytes once written (upstream/sent-once.ts).
    const long = PROMPT.repeat(40_000);
    await new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 }).chat.completions.create({ model: "qwen-7b", max_tokens: 32, messages: [{ role: "user", content: long }] });
    await gateway.close();
    expect(gateway.records.map((r) => [r.translated, r.status])).toEqual([["messages -> chat", 200], [undefined, 200]]);
    expect(receiver.spans.map((span) => span.attributes["gen_ai.request.max_tokens"])).toEqual([48, 32]);
  });
});

describe("a translated request's span", () => {
  // The request lets go of a translated plan's bytes once no other upstream is left to plan for, or once one with
  // fallbacks left answers (src/server/stages/forward.ts): the span, which reads max_tokens when it ends, must still see it.
  it.each([
    ["one upstream", false],
    ["an upstream with a fallback left that answers", true],
  ])("says the max_tokens the client asked for: %s", async (_, withFallback) => {
    const receiver = opened(await startOtlpReceiver());
    const first = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: REPLY }) }) }));
    const spare = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: REPLY }) }) }));
    const upstreams = { first: { url: first.url, key: "none", formats: ["chat"], ...(withFallback ? { fallback: ["spare"] } : {}) }, spare: { url: spare.url, key: "none" } };
    const gateway = opened(await startTestGateway(undefined, { file: { upstream: "first", upstreams }, otlp: settingsFor(receiver.url, "http/json") }));
    const anthropic = new Anthropic({ baseURL: `${gateway.url}/anthropic`, apiKey: LOCAL_KEY, maxRetries: 0 });
    await anthropic.messages.create({ model: "qwen-7b", max_tokens: 50, messages: [{ role: "user", content: PROMPT }] });
    const stream = await anthropic.messages.create({ model: "qwen-7b", max_tokens: 60, stream: true, messages: [{ role: "user", content: PROMPT }] });
    for await (const _event of stream);
    await gateway.close();

    expect([first.received.length, spare.received.length]).toEqual([2, 0]);
    expect(receiver.spans.map((span) => [span.attributes["gateway.upstream_format"], span.attributes["gen_ai.request.max_tokens"]])).toEqual([
      ["chat", 50],
      ["chat", 60],
    ]);
  });
});

describe("a collector that is down or hangs", () => {
  it("never delays a request: one is answered while an export hangs", async () => {
    // A collector that accepts the connection, reads, and never answers.
    const sockets: Socket[] = [];
    const hanging = createServer((socket) => {
      sockets.push(socket);
      socket.resume();
      hanging.emit("held");
    });
    hanging.listen(0, "127.0.0.1");
    await once(hanging, "listening");
    const url = `http://127.0.0.1:${(hanging.address() as { port: number }).port}`;
    opened({ close: () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); hanging.close(() => resolve()); }) });
    const upstream = opened(await startFakeUpstream());
    const gateway = opened(await startTestGateway(upstream.url, { otlp: settingsFor(url, "http/protobuf", { spanDelayMs: 1, metrics: undefined }), onTelemetryWarning: () => undefined }));
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const held = once(hanging, "held");
    await openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
    await held;
    // The first span's export is now waiting on the collector (10 s before it gives up); the next request is not.
    const started = performance.now();
    await openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(gateway.records.map((r) => r.status)).toEqual([200, 200]);
  });

  it("costs one warning naming the collector, whatever the number of failed exports, and never its headers", async () => {
    // A port nothing listens on: each export is refused at once.
    const probe = createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const url = `http://127.0.0.1:${(probe.address() as { port: number }).port}`;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const warnings: string[] = [];
    let warned: () => void = () => undefined;
    const firstWarning = new Promise<void>((resolve) => (warned = resolve));
    const upstream = opened(await startFakeUpstream());
    const gateway = await startTestGateway(upstream.url, {
      otlp: settingsFor(url, "http/protobuf", { spanDelayMs: 1, metricIntervalMs: 50 }),
      onTelemetryWarning: (line) => {
        warnings.push(line);
        warned();
      },
    });
    opened(gateway);
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const reply = await openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(reply.choices[0]!.message.content).toBeTruthy();
    await firstWarning;
    await openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
    // Closing makes the last exports, which fail too.
    await gateway.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^OTLP export of (traces|metrics) to ${url}/v1/(traces|metrics) failed: .+\\. Requests are not affected; check that the collector is up, or unset the endpoint \\(docs/telemetry\\.md\\)\\.$`));
    expect(warnings[0]).not.toContain("collector-token-1234");
  });

  it("warns again after a minute, saying how many exports failed in between", () => {
    let now = 0;
    const lines: string[] = [];
    const warn = createExportWarnings((line) => lines.push(line), () => now);
    const failed = { code: 1, error: new Error("connect ECONNREFUSED") };
    warn("traces", "http://c/v1/traces", failed);
    now = WARNING_INTERVAL_MS - 1;
    warn("traces", "http://c/v1/traces", failed);
    warn("metrics", "http://c/v1/metrics", { code: 0 });
    now = WARNING_INTERVAL_MS;
    warn("metrics", "http://c/v1/metrics", failed);
    expect(lines).toEqual([
      "OTLP export of traces to http://c/v1/traces failed: connect ECONNREFUSED. Requests are not affected; check that the collector is up, or unset the endpoint (docs/telemetry.md).",
      "OTLP export of metrics to http://c/v1/metrics failed: connect ECONNREFUSED (2 exports failed since the last warning). Requests are not affected; check that the collector is up, or unset the endpoint (docs/telemetry.md).",
    ]);
  });
});

describe("OTLP settings", () => {
  it("come from the standard variables, which win over config, and are absent without an endpoint", () => {
    const config = { telemetry: { otlp: { endpoint: "http://collector:4318" } } };
    expect(otlpSettings({ telemetry: {} }, {})).toBeUndefined();
    expect(otlpSettings(config, { OTEL_SDK_DISABLED: "true" })).toBeUndefined();
    expect(otlpSettings(config, {})).toEqual({
      traces: { url: "http://collector:4318/v1/traces", protocol: "http/protobuf", headers: {} },
      metrics: { url: "http://collector:4318/v1/metrics", protocol: "http/protobuf", headers: {} },
      serviceName: "gateway",
      metricIntervalMs: 60_000,
      spanDelayMs: 5_000,
    });
    const vars = {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example/otlp/v1/traces",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer%20abc,x-team=core",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-team=traces",
      OTEL_SERVICE_NAME: "laptop-gateway",
      OTEL_METRIC_EXPORT_INTERVAL: "15000",
    };
    expect(otlpSettings({ telemetry: {} }, vars)).toEqual({
      traces: { url: "https://traces.example/otlp/v1/traces", protocol: "http/json", headers: { authorization: "Bearer abc", "x-team": "traces" } },
      metrics: undefined,
      serviceName: "laptop-gateway",
      metricIntervalMs: 15_000,
      spanDelayMs: 5_000,
    });
    expect(() => otlpSettings(config, { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow('OTEL_EXPORTER_OTLP_PROTOCOL is "grpc"; the gateway exports over OTLP/HTTP only.');
  });

  it("take config telemetry.otlp.endpoint as a collector's http(s) base URL, and refuse anything else naming the field", () => {
    const load = (telemetry: unknown) => loadConfig({ env: { GATEWAY_CONFIG_DIR: tempConfigDir({ telemetry }) } });
    expect(load({ otlp: { endpoint: "http://localhost:4318/" } }).telemetry).toEqual({ otlp: { endpoint: "http://localhost:4318" } });
    expect(() => load({ otlp: { endpoint: "ftp://collector" } })).toThrow(
      '"telemetry.otlp.endpoint" must be an http:// or https:// URL of an OTLP/HTTP collector, without credentials, query or fragment (got "ftp://collector").',
    );
    expect(() => load({ otlp: { endpont: "http://x" } })).toThrow('"telemetry.otlp.endpont" must be absent: it is not a known field (did you mean "endpoint"?) (got "http://x").');
  });
});
