import { FailedError, UpstreamStatusError } from "../errors/index.js";
import { parseJsonObject } from "../parse-json.js";
import { refusesKey } from "./key-refusal.js";

/** The `error.message` of an upstream error body (every family puts it there), if the body has one. */
export function upstreamErrorMessage(text: string): string | undefined {
  const error = parseJsonObject(text)?.error as { message?: unknown } | undefined;
  return typeof error?.message === "string" ? error.message : undefined;
}

/** What to do next after an error status, in words that fit what the status means (a refused key whatever its status). */
function hintFor(status: number, keyRefused: boolean): string {
  if (keyRefused) return "Run `gateway login` to store a valid key (or check GATEWAY_API_KEY), then `gateway doctor`.";
  if (status === 404) return "Check the model id with `gateway models`, and the upstream URL.";
  if (status === 429) return "The upstream is rate limiting; wait a moment and try again.";
  if (status === 503) return "Run `gateway status` to see which upstream has no key, and `gateway doctor`.";
  if (status >= 500) return "The upstream is having trouble; try again, or run `gateway doctor`.";
  return "The upstream refused the request: check the model id (`gateway models`), then the options you passed (`--help`).";
}

/**
 * An upstream's error status as the terminal client reports it: one line naming the status and the upstream's own
 * message (the upstream by name when there are several), and a hint that fits the status.
 */
export function statusError(upstream: string, status: number, bodyText: string): UpstreamStatusError {
  const message = upstreamErrorMessage(bodyText) ?? bodyText.trim().slice(0, 300);
  const who = upstream === "default" ? "The upstream" : `The upstream ${upstream}`;
  const keyRefused = refusesKey(status, bodyText);
  // A refusal in a status that does not say so (LiteLLM's 400 "No connected db.") is named for what it is.
  const what = keyRefused && status !== 401 && status !== 403 ? `${who} refused the key: it answered ${status}` : `${who} answered ${status}`;
  return new UpstreamStatusError(upstream, status, `${what}${message ? `: ${message}` : ""}`, { hint: hintFor(status, keyRefused), upstreamMessage: message, keyRefused });
}

/**
 * An error the gateway made itself (its reply carries `x-gateway-error`), as the terminal client reports it: the
 * gateway's own words, never an upstream's. A spent budget says it is the gateway's budget (its message names which
 * one, the spend and the reset); the hint is the status's only for what the message does not already say.
 */
export function gatewayError(code: string, status: number, bodyText: string): FailedError {
  const message = upstreamErrorMessage(bodyText) ?? bodyText.trim().slice(0, 300);
  if (code === "budget_exceeded") return new FailedError(`The gateway's own budget stopped the request (${status}), not the upstream: ${message}`);
  return new FailedError(`The gateway answered ${status}${message ? `: ${message}` : ""}`, { hint: status === 401 ? "The local key was refused: run `gateway status` and `gateway doctor`." : hintFor(status, false) });
}
