import * as v from "valibot";
import { fields } from "./shapes.js";
import { nonEmptyText } from "./values.js";

const COLLECTOR = "an http:// or https:// URL of an OTLP/HTTP collector, without credentials, query or fragment";
const isCollector = (value: string) => {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  return url !== undefined && (url.protocol === "http:" || url.protocol === "https:") && !(url.search || url.hash || url.username || url.password);
};

/**
 * `telemetry` (SPEC 12, Traces and metrics over OTLP): `otlp.endpoint` is the collector's base URL, as
 * `OTEL_EXPORTER_OTLP_ENDPOINT` would give it (`/v1/traces` and `/v1/metrics` are added). A collector is often on
 * the team's network over plain HTTP, so `http://` is accepted anywhere: nothing exported carries a key or a prompt.
 */
export const telemetry = fields(
  {
    otlp: v.optional(
      fields(
        { endpoint: v.optional(v.pipe(nonEmptyText, v.check(isCollector, COLLECTOR), v.transform((value) => value.replace(/\/+$/, "")))) },
        'an object with the collector\'s "endpoint", e.g. {"endpoint": "http://localhost:4318"}',
      ),
    ),
  },
  'an object with an "otlp" field, e.g. {"otlp": {"endpoint": "http://localhost:4318"}}',
);

export type TelemetryFields = v.InferOutput<typeof telemetry>;
