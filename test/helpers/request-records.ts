import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RequestRecord } from "../../src/request-log/record.js";

/**
 * A completed chat request of `model` served by `upstream` at `time`, with 30 tokens in and 1 out: what a budget test
 * writes to a request log so that a gateway starts with that spend already made.
 */
export const spentRecord = (time: number, requestId: string, model = "paid-1", upstream = "paid"): RequestRecord => ({
  time: new Date(time).toISOString(),
  requestId,
  method: "POST",
  path: "/v1/chat/completions",
  family: "chat",
  format: "chat",
  upstreamFormat: "chat",
  model,
  upstream,
  echo: false,
  status: 200,
  durationMs: 5,
  ttfbMs: 5,
  inputTokens: 30,
  outputTokens: 1,
  cacheReadTokens: undefined,
  cacheWriteTokens: undefined,
  userAgent: "test",
  outcome: "complete",
});

/** `records` as the request log of the state directory `state` (JSON lines, readable by its owner alone). */
export const writeRequestLog = (state: string, records: readonly RequestRecord[]): void =>
  writeFileSync(join(state, "requests.jsonl"), records.map((line) => `${JSON.stringify(line)}\n`).join(""), { mode: 0o600 });

/** The request log of the state directory `state`, one record a line (none while the gateway has written none). */
export function readRequestLog(state: string): RequestRecord[] {
  const file = join(state, "requests.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as RequestRecord);
}
