import type { ConsolaInstance } from "consola";

/** What the gateway records about one request; never a key, never a body. */
export interface RequestRecord {
  time: string;
  requestId: string;
  method: string;
  path: string;
  family: "chat" | "messages" | null;
  model: string | undefined;
  status: number;
  durationMs: number;
  /** Time to the first body byte sent to the client. */
  ttfbMs: number | undefined;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  userAgent: string | undefined;
  /** `complete`, or why the reply ended early. */
  outcome: "complete" | "upstream_error" | "client_closed" | "local_error";
}

/** Receives one record per finished request. */
export type RequestSink = (record: RequestRecord) => void;

const ms = (value: number | undefined) => (value === undefined ? "-" : `${Math.round(value)}ms`);

/** `POST /v1/messages claude-x 200 1234ms ttfb 80ms tokens 12/40` */
export function formatRequestLine(r: RequestRecord): string {
  const tokens = r.inputTokens !== undefined || r.outputTokens !== undefined ? ` tokens ${r.inputTokens ?? "?"}/${r.outputTokens ?? "?"}` : "";
  const outcome = r.outcome === "complete" || r.outcome === "local_error" ? "" : ` (${r.outcome.replace("_", " ")})`;
  return `${r.method} ${r.path} ${r.model ?? "-"} ${r.status} ${ms(r.durationMs)} ttfb ${ms(r.ttfbMs)}${tokens}${outcome}`;
}

/** One consola line per request. */
export function consolaSink(logger: ConsolaInstance): RequestSink {
  return (record) => {
    const line = formatRequestLine(record);
    if (record.status >= 500 || record.outcome === "upstream_error") logger.error(line);
    else if (record.status >= 400) logger.warn(line);
    else logger.info(line);
  };
}
