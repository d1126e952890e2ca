import type { Endpoint } from "../format-types.js";
import { responsesFormat } from "./index.js";

/**
 * Whether a WebSocket upgrade at this endpoint (resolved as the POST it would carry) is Codex's Responses transport
 * (SPEC 12, the `OpenAI-Beta: responses_websockets=...` protocol): `/v1/responses` itself, not its compaction path.
 */
export const acceptsResponsesSocket = (endpoint: Endpoint): boolean => endpoint.format === responsesFormat && endpoint.rest === "/v1/responses";
