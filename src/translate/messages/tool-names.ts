import { createHash } from "node:crypto";
import type { IdSource, ReplyHints } from "../types.js";

const VALID_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const VALID_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * A tool name chat servers accept (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`; MCP tools may carry dots or be longer). A
 * valid name is kept; any other becomes its valid characters, cut to 55, plus 8 hex of its hash: the same
 * name always maps to the same result (in `tools`, in past `tool_use` blocks, in `tool_choice`, on every turn),
 * and two names that clean up alike still differ.
 */
export function upstreamToolName(name: string): string {
  if (VALID_NAME.test(name)) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 55)}_${hash}`;
}

/** The name the client declared for a tool the upstream calls by `name`. */
export const clientToolName = (name: string, hints: ReplyHints): string => hints.toolNames?.get(name)?.name ?? name;

/**
 * A `tool_use` id for an upstream call id: kept when Anthropic accepts it (`^[a-zA-Z0-9_-]+$`), so the tool
 * result that comes back next turn names the id the upstream made; else a fresh `toolu_` id.
 */
export const toolUseId = (id: string, ids: IdSource): string => (VALID_ID.test(id) ? id : ids("toolu_"));
