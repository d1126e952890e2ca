/** The captured request a curl command is made from (credentials already redacted by the gateway). */
export interface CapturedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Where each family's clients carry the key; a captured Gemini `key=` was removed from the path, so it goes here. */
const KEY_HEADER = { chat: "authorization", messages: "x-api-key", gemini: "x-goog-api-key" } as const;

type KeyedFamily = keyof typeof KEY_HEADER | null;

/** The variable a family's command reads the local key from: the one `gateway env` sets for that family's tools. */
export const keyVariable = (family: KeyedFamily): string => ({ chat: "OPENAI_API_KEY", messages: "ANTHROPIC_API_KEY", gemini: "GEMINI_API_KEY" })[family ?? "chat"];

/** Headers curl sets itself, or that would make the reply unreadable in a terminal (a compressed body). */
const LEFT_OUT = new Set(["host", "content-length", "connection", "keep-alive", "transfer-encoding", "accept-encoding"]);

const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
const keyValue = (name: string, variable: string): string => (name === "authorization" ? `Bearer $${variable}` : `$${variable}`);

/**
 * A POSIX-shell curl command that sends the captured request to the gateway again. Every credential the capture
 * redacted is left out, except the local key's carriers, which read the variable `gateway env` sets for the family
 * (`$ANTHROPIC_API_KEY`, in double quotes, so the shell expands it and the key itself is never in the text).
 */
export function curlCommand(request: CapturedRequest, origin: string, family: KeyedFamily): string {
  const variable = keyVariable(family);
  const lines = [`curl -sS -X ${request.method} ${quote(origin + request.path)}`];
  let keyed = false;
  for (const [name, value] of Object.entries(request.headers)) {
    if (LEFT_OUT.has(name)) continue;
    if (value !== "[redacted]") lines.push(`-H ${quote(`${name}: ${value}`)}`);
    else if ((Object.values(KEY_HEADER) as string[]).includes(name)) {
      lines.push(`-H "${name}: ${keyValue(name, variable)}"`);
      keyed = true;
    }
  }
  if (!keyed) {
    const name = KEY_HEADER[family ?? "chat"];
    lines.push(`-H "${name}: ${keyValue(name, variable)}"`);
  }
  if (request.body) lines.push(`--data-raw ${quote(request.body)}`);
  return lines.join(" \\\n  ");
}
