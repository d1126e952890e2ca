import { familyNamed } from "../formats/families.js";
import { cacheInInputOf } from "../formats/names.js";
import type { RequestRecord } from "../request-log/record.js";

/** A request's tokens as prices apply to them: `input` counts every input token, cached ones included. */
export interface PricedTokens {
  input: number;
  output: number;
  /** The part of `input` read from the prompt cache. */
  cacheRead: number;
  /** The part of `input` written to the prompt cache. */
  cacheWrite: number;
}

/**
 * The tokens to price, or undefined when the reply reported none. Usage is recorded as the upstream's format
 * reports it (SPEC section 6, Tokens): chat's `prompt_tokens` and Gemini's `promptTokenCount` include cached
 * tokens, Anthropic's `input_tokens` leaves out the ones read from and written to the cache (`UsageReader.cacheInInput`).
 * The format the upstream answered in decides (`messages -> chat`: chat's); a record without one (a path of no
 * format) was passed through, so its family's reader, which read it.
 */
export function pricedTokens(r: Pick<RequestRecord, "family" | "upstreamFormat" | "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens">): PricedTokens | undefined {
  if (r.inputTokens === undefined && r.outputTokens === undefined) return undefined;
  const cacheRead = r.cacheReadTokens ?? 0;
  const cacheWrite = r.cacheWriteTokens ?? 0;
  const reported = r.inputTokens ?? 0;
  // A record of no family (a path nothing claimed) or of a format this gateway lacks (a log another version wrote)
  // is read in chat's convention, the one most servers share.
  // The format's convention comes from the registry's half that loads no translator: `stats` prices every record.
  const cacheInInput = r.upstreamFormat ? cacheInInputOf(r.upstreamFormat) : r.family ? familyNamed(r.family)?.usage.cacheInInput : undefined;
  const input = (cacheInInput ?? true) ? Math.max(reported, cacheRead + cacheWrite) : reported + cacheRead + cacheWrite;
  return { input, output: r.outputTokens ?? 0, cacheRead, cacheWrite };
}
