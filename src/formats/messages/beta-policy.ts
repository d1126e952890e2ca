import type { Json } from "../../translate/hub.js";
import { BETA_FEATURES } from "./beta-features.js";
import type { KindQuirks } from "../../translate/server-quirks.js";

/** What a messages request becomes for one upstream: the `anthropic-beta` value to send and the body. */
export interface BetaPolicyResult {
  /** The header's value, comma-separated; undefined: send none. */
  header: string | undefined;
  body: Json;
  /** Whether `body` differs from the one given (a passthrough then rebuilds its bytes; else they go as they came). */
  bodyChanged: boolean;
  /** The values left out, for the request's record. */
  withheld: readonly string[];
}

/** The values of `anthropic-beta` (comma-separated, possibly repeated as a header), in order, each once. */
export function betaValues(header: string | readonly string[] | undefined): string[] {
  const joined = typeof header === "string" ? header : (header ?? []).join(",");
  return [...new Set(joined.split(",").map((value) => value.trim()).filter(Boolean))];
}

/**
 * A messages request for an upstream of a kind (SPEC 11, Kinds): a kind whose `betas` is `all` (first-party
 * Anthropic, `generic`) gets the request as it came; any other gets only the values its kind is known to accept,
 * and the body fields of every known feature none of whose values it accepts are left out, whether or not the
 * client named the beta (the server would refuse the field alone just the same). Pure: the body given is not changed.
 *
 * Applied on a messages passthrough (`formats/messages/index.ts`, `passthroughQuirks`); a translated request to a
 * messages upstream is written from the hub, which holds none of these fields, and goes without the client's betas.
 */
export function applyBetaPolicy(quirks: Pick<KindQuirks, "betas">, header: string | readonly string[] | undefined, body: Json): BetaPolicyResult {
  if (quirks.betas === "all") return { header: typeof header === "string" ? header : header?.join(","), body, bodyChanged: false, withheld: [] };
  const values = betaValues(header);
  const accepted = new Set(quirks.betas);
  let out = body;
  for (const feature of BETA_FEATURES) if (!feature.betas.some((beta) => accepted.has(beta))) out = feature.strip(out);
  const kept = values.filter((value) => accepted.has(value));
  return { header: kept.length ? kept.join(",") : undefined, body: out, bodyChanged: out !== body, withheld: values.filter((value) => !accepted.has(value)) };
}
