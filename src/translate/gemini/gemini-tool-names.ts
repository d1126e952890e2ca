import type { ReplyHints } from "../types.js";

/** What OpenAI and most chat servers accept as a function name; anything else is a 400. */
const CHAT_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Function names as a chat server accepts them. Gemini allows `.` and `:` in names, and Gemini CLI keeps them in
 * MCP tool names (`mcp_<server>__<tool>` with the server's dots, or `...` where a long name was shortened), which
 * chat servers refuse. Such a name gets a valid stand-in (each other character becomes `_`, a suffix keeps it
 * unique) that the reply side turns back through `ReplyHints.toolNames`. Names that are already valid are
 * reserved first and never change.
 */
export function createToolNames(declared: readonly string[]) {
  const chatNames = new Map<string, string>();
  const taken = new Set<string>();
  const renamed = new Map<string, { name: string }>();
  for (const name of declared) {
    if (CHAT_NAME.test(name)) {
      chatNames.set(name, name);
      taken.add(name);
    }
  }

  /** The chat name of a Gemini function name: itself when valid, else the same stand-in every time. */
  function toChat(name: string): string {
    const known = chatNames.get(name);
    if (known) return known;
    const base = (name.replace(/[^a-zA-Z0-9_-]/g, "_") || "_").slice(0, 60);
    let chat = base;
    for (let n = 2; taken.has(chat); n++) chat = `${base}_${n}`;
    chatNames.set(name, chat);
    taken.add(chat);
    renamed.set(chat, { name });
    return chat;
  }
  // Declared names get their stand-ins first, in declaration order, so a tool keeps its stand-in from turn to turn
  // whatever the history holds (the same bytes each time for local servers' prefix caches).
  for (const name of declared) toChat(name);

  return {
    toChat,
    /** The stand-ins made so far, for the reply side; undefined when every name was valid. */
    hints(): ReplyHints["toolNames"] {
      return renamed.size > 0 ? renamed : undefined;
    },
  };
}

export type ToolNames = ReturnType<typeof createToolNames>;

/** The Gemini name of a function the upstream called: the one the client declared. */
export const geminiToolName = (name: string, hints: ReplyHints): string => hints.toolNames?.get(name)?.name ?? name;
