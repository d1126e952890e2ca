import type { IdSource } from "../types.js";

const VALID_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * A `tool_use` id for an upstream call id: kept when Anthropic accepts it (`^[a-zA-Z0-9_-]+$`), so the tool
 * result that comes back next turn names the id the upstream made; else a fresh `toolu_` id.
 */
export const toolUseId = (id: string, ids: IdSource): string => (VALID_ID.test(id) ? id : ids("toolu_"));
