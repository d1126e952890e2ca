import { ConfigError } from "../errors/index.js";
import type { GatewayConfig } from "./types.js";

/** The two OTLP/HTTP encodings (the OpenTelemetry exporter specification's `http/protobuf` and `http/json`). */
export type OtlpProtocol = "http/protobuf" | "http/json";

/** Where one signal goes. `headers` may hold a collector's token: it is never printed, logged or kept in the config. */
export interface OtlpTarget {
  url: string;
  protocol: OtlpProtocol;
  headers: Readonly<Record<string, string>>;
}

/** What the gateway exports over OTLP (SPEC 12); each signal only when an endpoint names where it goes. */
export interface OtlpSettings {
  traces: OtlpTarget | undefined;
  metrics: OtlpTarget | undefined;
  /** `OTEL_SERVICE_NAME`. @default "gateway" */
  serviceName: string;
  /** `OTEL_METRIC_EXPORT_INTERVAL`, in milliseconds. @default 60_000 */
  metricIntervalMs: number;
  /** `OTEL_BSP_SCHEDULE_DELAY`: how long finished spans wait to go out in one batch, in milliseconds. @default 5_000 */
  spanDelayMs: number;
}

type Signal = "TRACES" | "METRICS";

const env = (vars: NodeJS.ProcessEnv, name: string): string | undefined => vars[name]?.trim() || undefined;

function protocolOf(vars: NodeJS.ProcessEnv, signal: Signal): OtlpProtocol {
  const name = env(vars, `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`) ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL` : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const value = env(vars, name) ?? "http/protobuf";
  if (value === "http/protobuf" || value === "http/json") return value;
  throw new ConfigError(`${name} is "${value}"; the gateway exports over OTLP/HTTP only.`, "env", {
    hint: `Set ${name}=http/protobuf (or http/json) and point the endpoint at the collector's HTTP port (4318 by default).`,
  });
}

/** `key1=value1,key2=value2`, each part URL-decoded (the OpenTelemetry SDK environment variable specification). */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const name = decodeURIComponent(pair.slice(0, at).trim()).toLowerCase();
    if (name) out[name] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return out;
}

/** A base endpoint gets the signal's path; a signal's own endpoint is used as it is (OTLP exporter specification). */
function targetOf(vars: NodeJS.ProcessEnv, signal: Signal, configEndpoint: string | undefined): OtlpTarget | undefined {
  const own = env(vars, `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`);
  const base = env(vars, "OTEL_EXPORTER_OTLP_ENDPOINT") ?? configEndpoint;
  const url = own ?? (base === undefined ? undefined : `${base.replace(/\/+$/, "")}/v1/${signal.toLowerCase()}`);
  if (url === undefined) return undefined;
  if (!URL.canParse(url)) {
    throw new ConfigError(`The OTLP ${signal.toLowerCase()} endpoint "${url}" is not a URL.`, own ? "env" : base === configEndpoint ? "file" : "env", {
      hint: "Give the collector's base URL, e.g. http://localhost:4318.",
    });
  }
  const headers = { ...parseOtlpHeaders(vars.OTEL_EXPORTER_OTLP_HEADERS), ...parseOtlpHeaders(vars[`OTEL_EXPORTER_OTLP_${signal}_HEADERS`]) };
  return { url, protocol: protocolOf(vars, signal), headers };
}

/**
 * The OTLP export this gateway makes (SPEC 12), from the standard `OTEL_*` variables (they win) and config
 * `telemetry.otlp.endpoint`; undefined when no endpoint is set, or `OTEL_SDK_DISABLED=true`: then nothing is exported
 * and no OpenTelemetry module loads. Read apart from the config, as `readEnvSecrets` is, because
 * `OTEL_EXPORTER_OTLP_HEADERS` may carry a collector's token.
 */
export function otlpSettings(config: Pick<GatewayConfig, "telemetry">, vars: NodeJS.ProcessEnv = process.env): OtlpSettings | undefined {
  if (env(vars, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  const endpoint = config.telemetry.otlp?.endpoint;
  const traces = targetOf(vars, "TRACES", endpoint);
  const metrics = targetOf(vars, "METRICS", endpoint);
  if (!traces && !metrics) return undefined;
  return {
    traces,
    metrics,
    serviceName: env(vars, "OTEL_SERVICE_NAME") ?? "gateway",
    metricIntervalMs: milliseconds(vars, "OTEL_METRIC_EXPORT_INTERVAL", 60_000),
    spanDelayMs: milliseconds(vars, "OTEL_BSP_SCHEDULE_DELAY", 5_000),
  };
}

function milliseconds(vars: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env(vars, name) ?? fallback);
  if (Number.isInteger(value) && value > 0) return value;
  throw new ConfigError(`${name} is "${vars[name]}".`, "env", { hint: `Set it to a whole number of milliseconds, e.g. ${fallback}.` });
}
