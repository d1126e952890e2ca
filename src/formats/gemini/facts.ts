import { arrayOf, count, holdsObject, textPaths } from "../fields.js";
import type { RequestFacts } from "../format-types.js";

type Content = { role?: unknown; parts?: unknown };
type ThinkingConfig = { thinkingBudget?: unknown; includeThoughts?: unknown };

const isImage = (data: unknown): boolean => typeof (data as { mimeType?: unknown } | undefined)?.mimeType === "string" && (data as { mimeType: string }).mimeType.startsWith("image/");

/**
 * What a Gemini request says about itself: image `inlineData` or `fileData` parts (in function responses too), the
 * function declarations and built-in tools (`googleSearch`) of `tools`, `thinkingConfig`, `systemInstruction` and
 * the first user content.
 */
export const geminiFacts: RequestFacts = {
  hasImage: (body) => holdsObject(body.contents, (part) => isImage(part.inlineData) || isImage(part.fileData)),
  tools: (body) =>
    arrayOf<Record<string, unknown>>(body.tools).flatMap((tool) =>
      Object.keys(tool).flatMap((kind) => (kind === "functionDeclarations" ? arrayOf<{ name?: unknown }>(tool[kind]).map((declaration) => declaration.name) : [kind])),
    ).filter((name): name is string => typeof name === "string"),
  maxTokens: (body) => count((body.generationConfig as { maxOutputTokens?: unknown } | undefined)?.maxOutputTokens),
  asksThinking(body) {
    const config = (body.generationConfig as { thinkingConfig?: ThinkingConfig } | undefined)?.thinkingConfig;
    return config !== undefined && ((typeof config.thinkingBudget === "number" && config.thinkingBudget !== 0) || config.includeThoughts === true);
  },
  tagPlaces(body) {
    const system = textPaths((body.systemInstruction as Content | undefined)?.parts, ["systemInstruction", "parts"]);
    const contents = arrayOf<Content>(body.contents);
    const user = contents.findIndex((content) => content.role === undefined || content.role === "user");
    return user === -1 ? system : [...system, ...textPaths(contents[user]!.parts, ["contents", user, "parts"])];
  },
};
