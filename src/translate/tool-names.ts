import { createHash } from "node:crypto";

/** How a client knows a tool: its name, the namespace it was declared in, and whether it is a freeform (`custom`) tool. */
export interface ClientTool {
  name: string;
  namespace?: string | undefined;
  custom?: boolean | undefined;
}

/** The pattern OpenAI (and most chat servers that copy it) require of a function name. */
const CHAT_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const hash8 = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 8);

/**
 * A valid name or id that stays recognisably the client's: unsafe characters become `_`, then 55 characters and a
 * hash of the whole, so two names that differ only in unsafe characters stay apart.
 */
export const hashedName = (raw: string): string => `${raw.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 55)}_${hash8(raw)}`;

/**
 * A tool name chat servers accept (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`; MCP tools carry dots or run longer, Gemini names
 * may hold `.` and `:`): a valid name is kept, any other gets its hashed form. The same name always maps the same
 * way, in the tool list, in past calls and in a tool choice, on every turn, so the bytes of a long conversation
 * stay stable for a local server's prefix cache.
 */
export const chatToolName = (raw: string): string => (CHAT_NAME.test(raw) ? raw : hashedName(raw));

/**
 * The chat function names of a request's tools, one registry per request. A namespaced member (Responses) becomes
 * `<namespace>__<member>` (chat has no namespaces, and the dot OpenAI uses internally is not a valid chat name); a
 * name that is not valid for chat, or that two tools would share, gets a hashed form. The same client tool always
 * gets the same chat name, so the tool list and the calls in the history agree, and `hints()` maps each chat name
 * back to the client's name and namespace for the reply.
 */
export function createToolNames() {
  const byClient = new Map<string, string>();
  const byChat = new Map<string, ClientTool>();
  const key = (name: string, namespace: string | undefined) => `${namespace ?? ""}\0${name}`;

  return {
    /** The chat name of a client tool; the first sight of a tool (its declaration, normally) records whether it is custom. */
    chatName(name: string, namespace?: string, custom = false): string {
      const known = byClient.get(key(name, namespace));
      if (known) return known;
      const raw = namespace ? `${namespace}__${name}` : name;
      let chat = chatToolName(raw);
      if (byChat.has(chat)) chat = hashedName(`${raw}\0${byChat.size}`);
      byClient.set(key(name, namespace), chat);
      byChat.set(chat, { name, namespace, custom });
      return chat;
    },
    /** The chat name of a tool already seen, without declaring it. */
    known: (name: string, namespace?: string): string | undefined => byClient.get(key(name, namespace)),
    /** Chat name -> client tool, for a reply side's hints. */
    hints: (): ToolNameMap => byChat,
  };
}

/** Tool names as sent upstream -> how the client knows them (namespaced Responses tools, names made valid for chat). */
export type ToolNameMap = ReadonlyMap<string, ClientTool>;

/** A request's tool-name registry. */
export type ToolNames = ReturnType<typeof createToolNames>;

/** The client's view of a tool the upstream called: the registry's entry, or the name as it came (a tool the request never declared). */
export const clientTool = (toolNames: ToolNameMap | undefined, chatName: string): ClientTool => toolNames?.get(chatName) ?? { name: chatName };
