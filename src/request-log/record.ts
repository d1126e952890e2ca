import type { FamilyName, Format } from "../formats/names.js";

/**
 * A line of the request log that is not a request: something the gateway itself ran into that `gateway logs` shows
 * among the requests (SPEC 12: a collector that refuses exports, at most once a minute). Nothing counts it: readers of
 * records (stats, budgets, the dashboard) never see it, as it has no `status` or `method`.
 */
export interface LogEvent {
  /** When it happened, ISO 8601. */
  time: string;
  event: "telemetry-export-failed";
  level: "warn";
  /** One line, never a key (a collector's headers are never in it). */
  message: string;
}

/** What the gateway records about one request; never a key, never a body. */
export interface RequestRecord {
  /** When the request finished, ISO 8601. */
  time: string;
  requestId: string;
  method: string;
  /** The path without its query string: a query may carry a key (`?key=`). */
  path: string;
  family: FamilyName | null;
  /** The model the request named (body `model`, or the Gemini path); undefined when it named none. */
  model: string | undefined;
  /** The catalog id an alias turned `model` into (SPEC section 7); undefined when no alias applied. */
  target?: string | undefined;
  /** The upstream that answered, or the last one tried (SPEC section 10); absent for requests that never got that far. */
  upstream?: string | undefined;
  /**
   * Whether `upstream` is the built-in echo: set whenever a request was routed to an upstream (absent in records of
   * gateways before issue 37, which pricing judges by the config's upstream of that name). Echo costs nothing.
   */
  echo?: boolean | undefined;
  /** The client's format (`chat`, `responses`, `messages`, `gemini`); absent for paths of none (model lists, embeddings). */
  format?: Format | undefined;
  /**
   * The format the upstream was asked in and answered in: `format` as it came, or the one it was translated into;
   * absent when no upstream was asked in a format (a local token count, a path of none). Usage is in its convention.
   */
  upstreamFormat?: Format | undefined;
  /** `<client format> -> <upstream format>` when the request was translated (`messages -> chat`): for display. */
  translated?: string | undefined;
  /** `websocket` when the request came as a message on Codex's Responses WebSocket (SPEC 12); absent over HTTP. */
  transport?: "websocket" | undefined;
  /**
   * Whether `upstream` is a local server (`ollama`, `vllm`, `llamacpp`, `lmstudio`): free unless config `prices` names
   * the model (SPEC 11, Budgets). Absent otherwise.
   */
  local?: boolean | undefined;
  /** The rule of `routes` that routed it (SPEC 11, Routes); absent when SPEC 10's rules did. */
  rule?: string | undefined;
  /** The Claude Code session that sent it (`x-claude-code-session-id`), which the status line sums (SPEC 11). */
  session?: string | undefined;
  /**
   * Which of the upstream's several keys was answered (SPEC 11, Several keys), as the config names it
   * (`keychain:work`, `env:SPARE_KEY`), never by value; absent for an upstream with one key.
   */
  key?: string | undefined;
  /** Every upstream tried before the one named in `upstream`, and why each failed; only when a fallback happened. */
  tried?: TriedUpstream[] | undefined;
  /** True when the client asked for a streamed reply; absent otherwise, and in records of gateways before this field. */
  stream?: boolean | undefined;
  status: number;
  durationMs: number;
  /** Time to the first body byte sent to the client. */
  ttfbMs: number | undefined;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  /**
   * True when the reply reported no usage (a chat stream without `stream_options.include_usage`) and the token counts
   * are the gateway's estimate: input from the request, output from what it relayed (SPEC 11, Budgets). Absent otherwise.
   */
  estimated?: boolean | undefined;
  /**
   * True when a `key: "client"` upstream served it, the user's own login (often a subscription): priced at API prices,
   * counted only toward that upstream's own budget, never the overall one, and shown apart (SPEC 11, Budgets).
   */
  ownLogin?: boolean | undefined;
  /** Input tokens read from the upstream's prompt cache (chat `cached_tokens`, messages `cache_read_input_tokens`). */
  cacheReadTokens: number | undefined;
  /** Input tokens written to the prompt cache (messages `cache_creation_input_tokens`). */
  cacheWriteTokens: number | undefined;
  userAgent: string | undefined;
  /**
   * The request's cost as the upstream stated it in its reply (a team gateway's `x-litellm-response-cost`, SPEC 12),
   * in US dollars; absent when it stated none.
   */
  upstreamCostUsd?: number | undefined;
  /** Whose figure `stats` and budgets use: `upstream` (`upstreamCostUsd`), or the gateway's `estimate`; absent without tokens or a stated cost. */
  costSource?: "upstream" | "estimate" | undefined;
  /** `complete`, or why the reply ended early. */
  outcome: "complete" | "upstream_error" | "client_closed" | "local_error";
  /** The gateway's own error code when it answered itself (`upstream_timeout`, `invalid_api_key`, ...). */
  errorCode?: string | undefined;
  /** Redacted request and reply headers; only with `gateway start --verbose`, and never written to the log file. */
  headers?: { request: Record<string, string>; reply: Record<string, string> };
}

/** An upstream that was tried and failed before the first byte (SPEC section 10, Fallback). */
export interface TriedUpstream {
  upstream: string;
  /** `upstream 429`, `unreachable`, `timeout`, `no key`. */
  failure: string;
  durationMs: number;
}

/** A reply that started and then ended early: the upstream broke or timed out, or the client went away. */
export const cutShort = (record: Pick<RequestRecord, "outcome">): boolean => record.outcome === "upstream_error" || record.outcome === "client_closed";

/** Receives one record per finished request. */
export type RequestSink = (record: RequestRecord) => void;

/** One sink that hands each record to all of `sinks`. */
export function fanOut(sinks: readonly RequestSink[]): RequestSink | undefined {
  if (sinks.length === 0) return undefined;
  if (sinks.length === 1) return sinks[0];
  return (record) => {
    for (const sink of sinks) sink(record);
  };
}
