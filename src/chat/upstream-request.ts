import type { GatewayConfig } from "../config/index.js";
import { UpstreamError } from "../errors/index.js";
import { DEFAULT_ANTHROPIC_VERSION, type Family } from "../families/index.js";
import { upstreamErrorMessage } from "../upstream/error-message.js";
import type { UpstreamClient, UpstreamReply } from "../upstream/upstream-client.js";

/** What to do next after an upstream error status. */
function hintFor(status: number): string {
  if (status === 401 || status === 403) return "Run `gateway login` to store a valid key (or check GATEWAY_API_KEY).";
  if (status === 404) return "Check the model id with `gateway models`, and the upstream URL.";
  if (status === 429) return "The upstream is rate limiting; wait a moment and try again.";
  if (status >= 500) return "The upstream is having trouble; try again, or run `gateway doctor`.";
  return "Check the options you passed (`gateway chat --help`).";
}

/** Throws a one-line error naming the status and the upstream's own message. */
async function failOnErrorStatus(reply: UpstreamReply): Promise<void> {
  if (reply.status < 400) return;
  const text = await reply.body.text().catch(() => "");
  const message = upstreamErrorMessage(text) ?? text.slice(0, 300);
  throw new UpstreamError(`The upstream answered ${reply.status}${message ? `: ${message}` : ""}`, { hint: hintFor(reply.status), status: reply.status });
}

/**
 * Sends one request of the terminal client through the same upstream client as the server, so retries, timeouts
 * and key handling behave identically; the path is put under the family's prefix. Error statuses become an
 * `UpstreamError`.
 */
export async function requestUpstream(
  client: UpstreamClient,
  config: GatewayConfig,
  family: Family,
  call: { method: "GET" | "POST"; path: string; body?: unknown; signal: AbortSignal },
): Promise<UpstreamReply> {
  const reply = await client.send({
    family,
    method: call.method,
    path: `${family.prefix({ messages: config.messagesSegment, gemini: config.geminiSegment })}${call.path}`,
    headers: { accept: "application/json", ...(call.body === undefined ? {} : { "content-type": "application/json" }), "user-agent": "gateway-cli" },
    version: DEFAULT_ANTHROPIC_VERSION,
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
    signal: call.signal,
  });
  await failOnErrorStatus(reply);
  return reply;
}
