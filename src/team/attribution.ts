import type { IncomingHttpHeaders } from "node:http";
import { clientName, knownClient } from "../request-log/client-name.js";
import type { HeaderMap } from "../upstream/header-policy.js";

/** The official SDKs by the product their user agent starts with: one name per SDK, whatever its language. */
const SDK_NAMES: ReadonlyMap<string, string> = new Map([
  ["OpenAI/JS", "openai-sdk"],
  ["OpenAI/Python", "openai-sdk"],
  ["Anthropic/JS", "anthropic-sdk"],
  ["Anthropic/Python", "anthropic-sdk"],
  ["google-genai-sdk", "google-genai-sdk"],
]);

/**
 * The session headers each tool sends, forwarded as they came: Claude Code's `x-claude-code-session-id`; Codex's
 * `session_id` and `conversation_id` (SPEC 12, Attribution).
 */
const SESSION_HEADERS = ["x-claude-code-session-id", "session_id", "conversation_id"] as const;

/** The client's name as `x-gateway-client` says it: `claude-code`, `codex`, `gemini-cli`, `openai-sdk`, else its product. */
export function attributedClient(userAgent: string | undefined): string {
  const product = clientName(userAgent);
  return knownClient(userAgent) ?? SDK_NAMES.get(product) ?? product;
}

/**
 * What a request to a team upstream adds to `headers` so the team's gateway can attribute spend per tool and session
 * (SPEC 12, Attribution): `x-gateway-client`, and each session header the client sent, as it came.
 */
export function addAttribution(headers: HeaderMap, client: IncomingHttpHeaders): HeaderMap {
  headers["x-gateway-client"] = attributedClient(client["user-agent"]);
  for (const name of SESSION_HEADERS) {
    const value = client[name];
    if (typeof value === "string" && value) headers[name] = value;
  }
  return headers;
}
