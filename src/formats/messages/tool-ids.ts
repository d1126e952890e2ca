import { hashedName } from "../../translate/tool-names.js";
import type { IdSource } from "../../translate/types.js";

const VALID_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * A `tool_use` id for an upstream call id: kept when Anthropic accepts it (`^[a-zA-Z0-9_-]+$`), so the tool
 * result that comes back next turn names the id the upstream made; else, and for a call that came without one, a
 * fresh `toolu_` id, the prefix Anthropic's clients expect.
 */
export const toolUseId = (id: string | undefined, ids: IdSource): string => (id !== undefined && VALID_ID.test(id) ? id : ids("toolu_"));

/**
 * A call id of a chat history as a messages upstream accepts it: kept when valid, else its valid characters and a
 * hash (Kimi's `functions.Bash:0` becomes `functions_Bash_0_` and 8 hex digits), the same for a call and its result
 * on every turn, so they stay paired and the conversation's bytes stay stable.
 */
export const requestToolUseId = (id: string): string => (VALID_ID.test(id) ? id : hashedName(id));
