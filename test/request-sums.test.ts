import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { RequestRecord } from "../src/request-log/record.js";
import { createGatewayMetrics, MAX_PENDING } from "../src/telemetry/gateway-metrics.js";
import { ATTRIBUTES, METRICS, promLabel } from "../src/telemetry/metric-names.js";
import { cutLabel, ModelLabels } from "../src/telemetry/label-caps.js";
import { errorTypeOf, MAX_KEPT_LABEL_SETS, RequestObserver, type Attributes, type Observation } from "../src/telemetry/observations.js";
import { createPrometheusExport } from "../src/telemetry/prometheus-export.js";
import { RequestSums, SeriesSums } from "../src/telemetry/request-sums.js";

/**
 * The request metrics are folded into running sums per label set and rendered at a scrape (issue 53: observing each
 * record into prom-client cost 25-35 µs a request under load). What a scrape shows must stay what prom-client's own
 * `Histogram` and `Counter` wrote for the same observations, line for line.
 */

const record = (i: number, fields: Partial<RequestRecord> = {}): RequestRecord => ({
  time: "2026-12-07T18:00:00.000Z",
  requestId: `req_${i}`,
  method: "POST",
  path: "/v1/chat/completions",
  family: "chat",
  model: "m",
  upstream: "up",
  format: "chat",
  upstreamFormat: "chat",
  stream: i % 2 === 0,
  status: 200,
  durationMs: 3 + (i % 7) * 7,
  ttfbMs: i % 3,
  inputTokens: 12 + i,
  outputTokens: 4 * i,
  cacheReadTokens: undefined,
  cacheWriteTokens: undefined,
  userAgent: undefined,
  outcome: "complete",
  ...fields,
});

/** Records of every kind a label set tells apart: errors, a cut request, no tokens, no upstream, odd characters, values on a bucket bound. */
const RECORDS: RequestRecord[] = [
  ...Array.from({ length: 40 }, (_, i) => record(i)),
  record(40, { status: 500, outcome: "upstream_error" }),
  record(41, { outcome: "client_closed", stream: true }),
  record(42, { model: 'we"ird\\model\nx', target: "served" }),
  record(43, { inputTokens: undefined, outputTokens: undefined }),
  record(44, { upstream: undefined, format: undefined, upstreamFormat: undefined }),
  record(45, { rule: "r".repeat(150) }),
  record(46, { durationMs: 10, ttfbMs: 5, inputTokens: 16, outputTokens: 1, stream: true }),
];

/** The request metrics as prom-client's own metrics write them, fed the same observations (the gateway's way before issue 53). */
async function promClientText(observations: { observation: Observation; cost: number | undefined }[]): Promise<string> {
  const registers = [new Registry()];
  const labels = (attributes: Attributes) => Object.fromEntries(Object.entries(attributes).map(([name, value]) => [promLabel(name), value]));
  const model = [ATTRIBUTES.operation, ATTRIBUTES.provider, ATTRIBUTES.requestModel, ATTRIBUTES.responseModel].map(promLabel);
  const histogram = (metric: { prom: string; help: string; buckets: readonly number[] }, labelNames: string[]) => new Histogram({ name: metric.prom, help: metric.help, labelNames, buckets: [...metric.buckets], registers });
  const tokens = histogram(METRICS.tokenUsage, [...model, promLabel(ATTRIBUTES.tokenType)]);
  const duration = histogram(METRICS.duration, [...model, promLabel(ATTRIBUTES.errorType)]);
  const ttft = histogram(METRICS.timeToFirstToken, model);
  const requests = new Counter({ name: METRICS.requests.prom, help: METRICS.requests.help, labelNames: ["format", "upstream", "route", "status_code"], registers });
  const cost = new Counter({ name: METRICS.cost.prom, help: METRICS.cost.help, labelNames: ["upstream", promLabel(ATTRIBUTES.requestModel)], registers });
  for (const { observation, cost: usd } of observations) {
    requests.inc(observation.request);
    if (usd !== undefined) cost.inc(labels(observation.cost), usd);
    const { call } = observation;
    if (!call) continue;
    duration.observe(labels(call.attributes), call.durationSeconds);
    if (call.timeToFirstToken) ttft.observe(labels(call.timeToFirstToken.attributes), call.timeToFirstToken.seconds);
    for (const point of call.tokens) tokens.observe(labels(point.attributes), point.count);
  }
  return registers[0]!.metrics();
}

const NO_READINGS = { inflight: () => 0, budgets: async () => [], restingKeys: () => [] };
/** The lines of the request metrics (not the process defaults or the gauges). */
const requestLines = (text: string) => text.split("\n").filter((line) => /^(# (HELP|TYPE) )?(gen_ai_|gateway_requests|gateway_cost)/.test(line));

describe("the request metrics' running sums", () => {
  it("render exactly what prom-client's Histogram and Counter write for the same observations", async () => {
    const observer = new RequestObserver((name) => (name === "up" ? "vllm" : undefined));
    const observations = RECORDS.map((r, i) => ({ observation: observer.observe(r), cost: r.inputTokens === undefined ? undefined : i / 1000 }));
    const sums = new RequestSums();
    for (const { observation, cost } of observations) sums.add(observation, cost);
    const rendered = requestLines(await createPrometheusExport(NO_READINGS, sums).scrape());
    expect(rendered.length).toBeGreaterThan(100);
    expect(rendered).toEqual(requestLines(await promClientText(observations)));
  });

  it("count a value on a bucket's bound in that bucket, and one past every bound in +Inf only", () => {
    const sums = new SeriesSums([1, 2]);
    for (const value of [1, 1.5, 2, 3]) sums.add({ a: "x" }, value);
    sums.add({ a: "y" }, 0);
    expect([...sums.series()]).toEqual([
      { labels: { a: "x" }, count: 4, sum: 7.5, buckets: [1, 2, 1] },
      { labels: { a: "y" }, count: 1, sum: 0, buckets: [1, 0, 0] },
    ]);
  });

  it("keep label sets apart whose values only join alike", () => {
    const sums = new SeriesSums();
    sums.add({ "gen_ai.a": "x:", b: "y" }, 1);
    sums.add({ "gen_ai.a": "x", b: ":y" }, 1);
    expect([...sums.series()].map((s) => s.labels)).toEqual([
      { gen_ai_a: "x:", b: "y" },
      { gen_ai_a: "x", b: ":y" },
    ]);
  });
});

/**
 * What the observer gave every record before it kept its label sets (the reference): each set made afresh, the label
 * caps asked for every metric of every record.
 */
function referenceObserver(kindOf: (upstream: string) => string | undefined): (r: RequestRecord) => Observation {
  const models = { tokens: new ModelLabels(), duration: new ModelLabels(), ttft: new ModelLabels(), cost: new ModelLabels() };
  return (r) => {
    const upstream = r.upstream ?? "";
    const request = { format: r.format ?? r.family ?? "", upstream, route: r.rule === undefined ? "" : cutLabel(r.rule), status_code: String(r.status) };
    const cost = { upstream, [ATTRIBUTES.requestModel]: models.cost.label(r.model) };
    if (r.format === undefined || r.upstream === undefined || r.upstreamFormat === undefined) return { request, call: undefined, cost };
    const provider = kindOf(r.upstream) ?? "";
    const labelsFor = (m: ModelLabels): Attributes => ({ [ATTRIBUTES.operation]: "chat", [ATTRIBUTES.provider]: provider, [ATTRIBUTES.requestModel]: m.label(r.model), [ATTRIBUTES.responseModel]: m.label(r.target ?? r.model) });
    const error = errorTypeOf(r);
    const attributes = labelsFor(models.duration);
    if (error !== undefined) attributes[ATTRIBUTES.errorType] = error;
    const tokenLabels = r.inputTokens === undefined && r.outputTokens === undefined ? undefined : labelsFor(models.tokens);
    const tokens = [];
    if (tokenLabels && r.inputTokens !== undefined) tokens.push({ attributes: { ...tokenLabels, [ATTRIBUTES.tokenType]: "input" }, count: r.inputTokens });
    if (tokenLabels && r.outputTokens !== undefined) tokens.push({ attributes: { ...tokenLabels, [ATTRIBUTES.tokenType]: "output" }, count: r.outputTokens });
    const ttft = r.stream && r.ttfbMs !== undefined && error === undefined ? { attributes: labelsFor(models.ttft), seconds: r.ttfbMs / 1000 } : undefined;
    return { request, call: { attributes, durationSeconds: r.durationMs / 1000, timeToFirstToken: ttft, tokens }, cost };
  };
}

describe("the observer's label sets, made once", () => {
  it("hand out the same set for the same labels", () => {
    const observer = new RequestObserver(() => "vllm");
    const [a, b] = [observer.observe(record(1)), observer.observe(record(3))];
    expect([b.request, b.cost, b.call?.attributes, b.call?.tokens[0]?.attributes]).toEqual([a.request, a.cost, a.call?.attributes, a.call?.tokens[0]?.attributes]);
    expect(b.request).toBe(a.request);
    expect(b.call?.tokens[1]?.attributes).toBe(a.call?.tokens[1]?.attributes);
    expect(Object.isFrozen(a.call?.attributes)).toBe(true);
  });

  it("give every record what sets made afresh gave it, past the 500 models of the caps and past the sets it keeps", () => {
    const kindOf = (name: string) => (name === "up" ? "vllm" : undefined);
    const observer = new RequestObserver(kindOf);
    const reference = referenceObserver(kindOf);
    // 700 models in four shapes each: more label sets than are kept (so they are dropped and made again), more models than the caps count.
    const shapes: Partial<RequestRecord>[] = [{}, { status: 500, outcome: "upstream_error" }, { stream: false, inputTokens: undefined }, { upstream: "other-up", rule: "r" }];
    expect(700 * shapes.length).toBeGreaterThan(MAX_KEPT_LABEL_SETS);
    const records = [...RECORDS];
    for (let pass = 0; pass < 2; pass++) for (let i = 0; i < 700; i++) records.push(record(i, { model: `model-${i}`, ...shapes[(i + pass) % shapes.length] }));
    for (const r of records) expect(observer.observe(r)).toEqual(reference(r));
  });
});

describe("the gateway's metrics before a first scrape", () => {
  it("price the records waiting once MAX_PENDING wait, and a first scrape then counts every one", async () => {
    let priced = 0;
    let loadPrices: (() => void) | undefined;
    const pricesAsked = new Promise<void>((resolve) => (loadPrices = resolve));
    const metrics = createGatewayMetrics({
      observer: new RequestObserver(() => "generic"),
      pricer: async () => {
        loadPrices!();
        return () => (priced++, 0.5);
      },
      readings: NO_READINGS,
    });
    for (let i = 0; i < MAX_PENDING; i++) metrics.sink(record(i));
    await pricesAsked;
    metrics.sink(record(MAX_PENDING));
    const text = (await metrics.scrape()).text;
    expect(priced).toBe(MAX_PENDING + 1);
    expect(text).toContain(`gateway_requests_total{format="chat",upstream="up",route="",status_code="200"} ${MAX_PENDING + 1}`);
    expect(text).toContain(`gateway_cost_usd_total{upstream="up",gen_ai_request_model="m"} ${(MAX_PENDING + 1) * 0.5}`);
  });
});
