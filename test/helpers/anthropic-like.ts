import type { Script, ScriptedReply } from "./fake-upstream.js";

/**
 * What api.anthropic.com answers a request without `anthropic-version`: 400 with this body (seen in the wild, e.g.
 * envoyproxy/ai-gateway#1909, PipedreamHQ/pipedream#9697).
 */
export const VERSION_REQUIRED = {
  status: 400,
  json: { type: "error", error: { type: "invalid_request_error", message: "anthropic-version: header is required" }, request_id: "req_011CVersionRequired" },
} satisfies ScriptedReply;

/**
 * An upstream that behaves as Anthropic's API does at its root (`messagesSegment: ""`): every request needs
 * `anthropic-version` (else `VERSION_REQUIRED`) and, when `key` is given, `x-api-key: <key>` (else 401); `GET
 * /v1/models` lists `models` in Anthropic's shape; anything else goes to `rest`.
 */
export function anthropicLike(options: { models: string[]; key?: string; rest?: Script }): Script {
  return (req) => {
    if (!req.headers["anthropic-version"]) return VERSION_REQUIRED;
    if (options.key !== undefined && req.headers["x-api-key"] !== options.key) {
      return { status: 401, json: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } };
    }
    if (req.method === "GET" && req.path === "/v1/models") {
      const data = options.models.map((id) => ({ type: "model", id, display_name: id, created_at: "2025-09-29T00:00:00Z" }));
      return { json: { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null } };
    }
    return options.rest ? options.rest(req) : { status: 404, json: { type: "error", error: { type: "not_found_error", message: `Not found: ${req.path}` } } };
  };
}
