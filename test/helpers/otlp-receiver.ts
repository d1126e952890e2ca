import { EventEmitter, once } from "node:events";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";

/**
 * An OTLP/HTTP collector for the tests: it takes `POST /v1/traces` and `/v1/metrics` in both encodings the OpenTelemetry
 * exporters send (`application/x-protobuf`, `application/json`), decodes them into one plain shape and keeps every
 * request's raw bytes and headers, so a test can also search what was sent for what must never be there.
 *
 * The protobuf messages are declared here with the field numbers of open-telemetry/opentelemetry-proto
 * (`opentelemetry/proto/{trace,metrics,common,resource}/v1/*.proto`), as `@opentelemetry/otlp-transformer`'s own
 * serializers (`build/src/{trace,metrics,common}/protobuf/*-serializer.js`) write them; only the fields the tests read.
 */
const field = (id: number, type: string, rule?: "repeated") => ({ id, type, ...(rule ? { rule } : {}) });
const OTLP = protobuf.Root.fromJSON({
  nested: {
    KeyValue: { fields: { key: field(1, "string"), value: field(2, "AnyValue") } },
    AnyValue: {
      oneofs: { value: { oneof: ["stringValue", "boolValue", "intValue", "doubleValue", "arrayValue"] } },
      fields: { stringValue: field(1, "string"), boolValue: field(2, "bool"), intValue: field(3, "int64"), doubleValue: field(4, "double"), arrayValue: field(5, "ArrayValue") },
    },
    ArrayValue: { fields: { values: field(1, "AnyValue", "repeated") } },
    Resource: { fields: { attributes: field(1, "KeyValue", "repeated") } },
    Scope: { fields: { name: field(1, "string"), version: field(2, "string") } },
    Status: { fields: { message: field(2, "string"), code: field(3, "int32") } },
    Span: {
      fields: {
        traceId: field(1, "bytes"),
        spanId: field(2, "bytes"),
        parentSpanId: field(4, "bytes"),
        name: field(5, "string"),
        kind: field(6, "int32"),
        attributes: field(9, "KeyValue", "repeated"),
        status: field(15, "Status"),
      },
    },
    ScopeSpans: { fields: { scope: field(1, "Scope"), spans: field(2, "Span", "repeated") } },
    ResourceSpans: { fields: { resource: field(1, "Resource"), scopeSpans: field(2, "ScopeSpans", "repeated") } },
    ExportTraceServiceRequest: { fields: { resourceSpans: field(1, "ResourceSpans", "repeated") } },
    NumberDataPoint: { fields: { asDouble: field(4, "double"), asInt: field(6, "sfixed64"), attributes: field(7, "KeyValue", "repeated") } },
    HistogramDataPoint: { fields: { count: field(4, "fixed64"), sum: field(5, "double"), attributes: field(9, "KeyValue", "repeated") } },
    Gauge: { fields: { dataPoints: field(1, "NumberDataPoint", "repeated") } },
    Sum: { fields: { dataPoints: field(1, "NumberDataPoint", "repeated") } },
    Histogram: { fields: { dataPoints: field(1, "HistogramDataPoint", "repeated") } },
    Metric: { fields: { name: field(1, "string"), unit: field(3, "string"), gauge: field(5, "Gauge"), sum: field(7, "Sum"), histogram: field(9, "Histogram") } },
    ScopeMetrics: { fields: { scope: field(1, "Scope"), metrics: field(2, "Metric", "repeated") } },
    ResourceMetrics: { fields: { resource: field(1, "Resource"), scopeMetrics: field(2, "ScopeMetrics", "repeated") } },
    ExportMetricsServiceRequest: { fields: { resourceMetrics: field(1, "ResourceMetrics", "repeated") } },
  },
});

type Value = string | number | boolean | Value[];

/** One span as received: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's `SpanKind`: 3 is `SPAN_KIND_CLIENT`. */
  kind: number;
  attributes: Record<string, Value>;
  statusCode: number;
  /** The resource's attributes (`service.name`). */
  resource: Record<string, Value>;
}

/** One data point of a metric as received: a number's value, or a histogram's count and sum. */
export interface ReceivedPoint {
  metric: string;
  unit: string;
  attributes: Record<string, Value>;
  value?: number;
  count?: number;
  sum?: number;
}

/** One export request as it came. */
export interface ReceivedExport {
  path: string;
  contentType: string | undefined;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

function valueOf(any: Json | undefined): Value {
  if (!any) return "";
  if ("stringValue" in any) return any.stringValue as string;
  if ("boolValue" in any) return any.boolValue as boolean;
  if ("intValue" in any) return Number(any.intValue);
  if ("doubleValue" in any) return Number(any.doubleValue);
  if ("arrayValue" in any) return list((any.arrayValue as Json).values).map(valueOf);
  return "";
}

const attributesOf = (kvs: unknown): Record<string, Value> => Object.fromEntries(list(kvs).map((kv) => [kv.key as string, valueOf(kv.value as Json)]));
/** Ids are hex in OTLP/JSON and bytes in protobuf (decoded to base64 by `toObject`). */
const hexId = (id: unknown, json: boolean): string => (typeof id !== "string" ? "" : json ? id.toLowerCase() : Buffer.from(id, "base64").toString("hex"));

function spansOf(body: Json, json: boolean): ReceivedSpan[] {
  return list(body.resourceSpans).flatMap((rs) =>
    list(rs.scopeSpans).flatMap((ss) =>
      list(ss.spans).map((span) => ({
        traceId: hexId(span.traceId, json),
        spanId: hexId(span.spanId, json),
        parentSpanId: hexId(span.parentSpanId, json),
        name: span.name as string,
        kind: Number(span.kind),
        attributes: attributesOf(span.attributes),
        statusCode: Number((span.status as Json | undefined)?.code ?? 0),
        resource: attributesOf((rs.resource as Json | undefined)?.attributes),
      })),
    ),
  );
}

function pointsOf(body: Json): ReceivedPoint[] {
  return list(body.resourceMetrics).flatMap((rm) =>
    list(rm.scopeMetrics).flatMap((sm) =>
      list(sm.metrics).flatMap((metric) => {
        const base = { metric: metric.name as string, unit: (metric.unit as string | undefined) ?? "" };
        const numbers = list(((metric.sum ?? metric.gauge) as Json | undefined)?.dataPoints).map((p) => ({ ...base, attributes: attributesOf(p.attributes), value: Number(p.asDouble ?? p.asInt ?? 0) }));
        const histograms = list((metric.histogram as Json | undefined)?.dataPoints).map((p) => ({ ...base, attributes: attributesOf(p.attributes), count: Number(p.count), sum: Number(p.sum) }));
        return [...numbers, ...histograms];
      }),
    ),
  );
}

function decode(path: string, contentType: string | undefined, raw: Buffer): { spans: ReceivedSpan[]; points: ReceivedPoint[] } {
  const json = contentType?.startsWith("application/json") === true;
  const type = path === "/v1/traces" ? "ExportTraceServiceRequest" : "ExportMetricsServiceRequest";
  const body = json ? (JSON.parse(raw.toString("utf8")) as Json) : (OTLP.lookupType(type).toObject(OTLP.lookupType(type).decode(raw), { longs: Number, bytes: String, oneofs: false }) as Json);
  return path === "/v1/traces" ? { spans: spansOf(body, json), points: [] } : { spans: [], points: pointsOf(body) };
}

/** Starts the collector on 127.0.0.1:0. */
export async function startOtlpReceiver() {
  const events = new EventEmitter();
  const exports: ReceivedExport[] = [];
  const spans: ReceivedSpan[] = [];
  const points: ReceivedPoint[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const path = req.url ?? "";
      const contentType = req.headers["content-type"];
      exports.push({ path, contentType, headers: req.headers, raw });
      const decoded = decode(path, contentType, raw);
      spans.push(...decoded.spans);
      points.push(...decoded.points);
      res.writeHead(200, { "content-type": contentType ?? "application/json" }).end(contentType?.startsWith("application/json") ? "{}" : undefined);
      events.emit("export");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    exports,
    spans,
    points,
    /** Resolves once `test` holds, checked after each export received. */
    async until(test: () => boolean): Promise<void> {
      while (!test()) await once(events, "export");
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type OtlpReceiver = Awaited<ReturnType<typeof startOtlpReceiver>>;
