import { isRecord } from "../../parse-json.js";
import type { HubContentPart, Json } from "../../translate/hub.js";

/** Chat's image detail levels; Codex may send others (`original`), which a chat server rejects. */
const DETAILS = new Set(["auto", "low", "high"]);

/** A file input a chat upstream cannot take, named so the model knows something was there. */
const filePlaceholder = (part: Json): string => `[file${typeof part.filename === "string" ? ` ${part.filename}` : ""} not shown: this model takes no files]`;

/**
 * One Responses content part as a chat part: `input_text`/`output_text` (and a bare `text`, a `refusal`) become
 * text, `input_image` an `image_url` part with its detail, `input_file` a text placeholder; anything else (audio,
 * an image known only by `file_id`) is left out. Empty texts are dropped.
 */
export function hubPart(part: unknown): HubContentPart | undefined {
  if (typeof part === "string") return part ? { type: "text", text: part } : undefined;
  if (!isRecord(part)) return undefined;
  switch (part.type) {
    case "input_text":
    case "output_text":
    case "text":
      return typeof part.text === "string" && part.text ? { type: "text", text: part.text } : undefined;
    case "refusal":
      return typeof part.refusal === "string" && part.refusal ? { type: "text", text: part.refusal } : undefined;
    case "input_image": {
      const url = typeof part.image_url === "string" ? part.image_url : isRecord(part.image_url) ? part.image_url.url : undefined;
      if (typeof url !== "string" || !url) return undefined;
      return { type: "image_url", image_url: { url, ...(typeof part.detail === "string" && DETAILS.has(part.detail) ? { detail: part.detail } : {}) } };
    }
    case "input_file":
      return { type: "text", text: filePlaceholder(part) };
    default:
      return undefined;
  }
}

/** A message's `content` (a string or a list of parts) as chat parts. */
export const hubParts = (content: unknown): HubContentPart[] =>
  (Array.isArray(content) ? content : [content]).map(hubPart).filter((part): part is HubContentPart => part !== undefined);

/** A tool's output as a chat `tool` message can carry it: its text, and its images apart (a tool message is text-only on most servers). */
export interface ToolOutput {
  text: string;
  images: HubContentPart[];
}

/**
 * `function_call_output.output` / `custom_tool_call_output.output`: a string, or a list of `input_text` /
 * `input_image` / `input_file` parts (Codex's code mode sends `input_text` parts); an old `{content, success}`
 * object is read by its content. Images are returned apart, to follow the tool messages as a user message.
 */
export function toolOutput(output: unknown): ToolOutput {
  if (typeof output === "string") return { text: output, images: [] };
  if (isRecord(output) && typeof output.content === "string") return { text: output.content, images: [] };
  if (!Array.isArray(output)) return { text: output === undefined || output === null ? "" : JSON.stringify(output), images: [] };
  const parts = hubParts(output);
  const images = parts.filter((part) => part.type === "image_url");
  return { text: parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n"), images };
}
