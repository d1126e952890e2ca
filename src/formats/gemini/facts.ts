import { isRecord } from "../../parse-json.js";
import { count, holdsObject, textPaths, type BodyPath } from "../fields.js";
import type { RequestFacts } from "../format-types.js";
import { camelCase, countTokensRequest, field, fieldKey, numberField, objectField, objectsField, stringField } from "./gemini-fields.js";

type Json = Record<string, unknown>;

/** An `inlineData` or `fileData` whose `mimeType` is an image's. */
const isImage = (data: Json | undefined): boolean => stringField(data, "mimeType")?.startsWith("image/") === true;

/** The texts a route tag may open in a generate request at `at`: its system instruction's, then its first user content's. */
function tagPlacesOf(body: Json, at: BodyPath): BodyPath[] {
  const systemKey = fieldKey(body, "systemInstruction");
  const instruction = systemKey === undefined ? undefined : body[systemKey];
  // A bare string, from hand-written clients, is a system instruction the translator reads too.
  const system = systemKey === undefined ? [] : typeof instruction === "string" ? [[...at, systemKey]] : textPaths(field(instruction, "parts"), [...at, systemKey, "parts"]);
  const contents = objectsField(body, "contents");
  const user = contents.findIndex((content) => content.role === undefined || content.role === "user");
  return user === -1 ? system : [...system, ...textPaths(contents[user]!.parts, [...at, "contents", user, "parts"])];
}

/**
 * What a Gemini request says about itself: image `inlineData` or `fileData` parts (in function responses too), the
 * function declarations and built-in tools (`googleSearch`) of `tools`, `thinkingConfig`, `systemInstruction` and
 * the first user content. Read through the translators' field helpers (`gemini-fields.ts`), so each snake_case
 * spelling Google accepts (`system_instruction`, `inline_data.mime_type`, `generation_config.thinking_config`) says
 * what its camelCase twin says; a `:countTokens` body is read as the generate request it holds.
 */
export const geminiFacts: RequestFacts = {
  hasImage: (body) => holdsObject(field(countTokensRequest(body), "contents"), (part) => isImage(objectField(part, "inlineData")) || isImage(objectField(part, "fileData"))),
  tools: (body) =>
    objectsField(countTokensRequest(body), "tools")
      .flatMap((tool) => Object.keys(tool).flatMap((kind) => (camelCase(kind) === "functionDeclarations" ? objectsField(tool, "functionDeclarations").map((declaration) => declaration.name) : [camelCase(kind)])))
      .filter((name): name is string => typeof name === "string"),
  maxTokens: (body) => count(field(objectField(body, "generationConfig"), "maxOutputTokens")),
  asksThinking(body) {
    const config = objectField(objectField(countTokensRequest(body), "generationConfig"), "thinkingConfig");
    return config !== undefined && ((numberField(config, "thinkingBudget") ?? 0) !== 0 || field(config, "includeThoughts") === true);
  },
  tagPlaces(body) {
    const innerKey = fieldKey(body, "generateContentRequest");
    const inner = innerKey === undefined ? undefined : body[innerKey];
    return innerKey !== undefined && isRecord(inner) ? tagPlacesOf(inner, [innerKey]) : tagPlacesOf(body, []);
  },
};
