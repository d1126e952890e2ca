/** Reading the last user message out of the three request shapes the echo upstream answers. */

type Part = { type?: unknown; text?: unknown };
type Turn = { role?: unknown; content?: unknown };

/** Text of a message `content`: a string, or the text parts of an array (`text`, `input_text`). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part: Part) => typeof part?.text === "string")
    .map((part: Part) => part.text as string)
    .join("\n");
}

type GeminiContent = { role?: unknown; parts?: unknown };

/** The text of the last `role: "user"` turn of a chat, messages, responses or Gemini request. */
export function lastUserText(body: Record<string, unknown>): string {
  if (Array.isArray(body.contents)) {
    const turns = body.contents as GeminiContent[];
    for (let i = turns.length - 1; i >= 0; i--) {
      if (turns[i]?.role === undefined || turns[i]?.role === "user") return contentText(turns[i]?.parts);
    }
    return "";
  }
  const turns = body.messages ?? body.input;
  if (typeof turns === "string") return turns;
  if (!Array.isArray(turns)) return "";
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i] as Turn;
    if (turn?.role === "user") return contentText(turn.content);
  }
  return "";
}

/** Every text in the request, for a plausible input token count. */
export function allText(body: Record<string, unknown>): string {
  if (Array.isArray(body.contents)) {
    const system = contentText((body.systemInstruction as GeminiContent | undefined)?.parts);
    return system + (body.contents as GeminiContent[]).map((turn) => contentText(turn?.parts)).join("\n");
  }
  const turns = body.messages ?? body.input;
  const system = typeof body.system === "string" ? body.system : contentText(body.system);
  const instructions = typeof body.instructions === "string" ? body.instructions : "";
  if (typeof turns === "string") return `${system}${instructions}${turns}`;
  if (!Array.isArray(turns)) return system + instructions;
  return system + instructions + turns.map((turn: Turn) => contentText(turn?.content)).join("\n");
}
