import { isRecord } from "../../parse-json.js";
import type { HubRequest, HubResponseFormat, Json } from "../../translate/hub.js";
import { field, numberField, objectField, stringField } from "./gemini-fields.js";
import { cleanJsonSchema, openApiToJsonSchema } from "./gemini-schema.js";
import { type Effort, effortOfBudget, effortOfWord } from "../../translate/reasoning-effort.js";

/**
 * Gemini `generationConfig` as chat request fields. Left out on purpose: `topK` (not a chat field; strict servers
 * refuse it), `candidateCount` (the reply side answers with one candidate, and chat servers mostly ignore `n`),
 * `responseModalities`, `speechConfig`, `mediaResolution`, `responseLogprobs` (nothing to map them to).
 */

type Sampling = Pick<HubRequest, "max_tokens" | "temperature" | "top_p" | "stop"> & Record<string, unknown>;

/** Gemini field -> chat field, for the numbers that mean the same on both sides. */
const SAME_NUMBERS: ReadonlyArray<readonly [string, string]> = [
  ["temperature", "temperature"],
  ["topP", "top_p"],
  ["presencePenalty", "presence_penalty"],
  ["frequencyPenalty", "frequency_penalty"],
  ["seed", "seed"],
];

/** Output limit, sampling and stop sequences. */
export function samplingFields(config: Json | undefined): Sampling {
  const out: Sampling = {};
  const limit = numberField(config, "maxOutputTokens");
  if (limit !== undefined && limit > 0) out.max_tokens = limit;
  for (const [gemini, chat] of SAME_NUMBERS) {
    const value = numberField(config, gemini);
    if (value !== undefined) out[chat] = value;
  }
  const stops = field(config, "stopSequences");
  const stop = Array.isArray(stops) ? stops.filter((entry): entry is string => typeof entry === "string" && entry !== "") : [];
  if (stop.length > 0) out.stop = stop;
  return out;
}

/**
 * JSON output: `responseMimeType: "application/json"` with a schema (`responseJsonSchema`, plain JSON Schema, or
 * `responseSchema`, the OpenAPI subset) as `json_schema`, without one as `json_object`. Gemini CLI's router asks
 * this way and repeats the call for ever when the answer does not parse (research table E row 20).
 */
export function responseFormat(config: Json | undefined): HubResponseFormat | undefined {
  const mime = stringField(config, "responseMimeType")?.trim().toLowerCase();
  if (!mime?.startsWith("application/json")) return undefined;
  const jsonSchema = field(config, "responseJsonSchema");
  const openApi = field(config, "responseSchema");
  const schema = jsonSchema !== undefined ? cleanJsonSchema(jsonSchema) : openApi !== undefined ? openApiToJsonSchema(openApi) : undefined;
  return isRecord(schema) ? { type: "json_schema", json_schema: { name: "response", schema } } : { type: "json_object" };
}

/**
 * `thinkingConfig` as chat's `reasoning_effort` (SPEC 10 rule 4): `thinkingLevel` word for word (MINIMAL as low,
 * the least there is), else `thinkingBudget` in tokens (`low` <= 2048 < `medium` <= 8192 < `high`; -1, "as much
 * as the model likes", as medium). A budget of 0 turns thinking off, which `reasoning_effort` cannot say: the
 * field is left out then.
 */
export function reasoningEffort(config: Json | undefined): Effort | undefined {
  const thinking = objectField(config, "thinkingConfig");
  const level = effortOfWord(stringField(thinking, "thinkingLevel"));
  if (level) return level;
  const budget = numberField(thinking, "thinkingBudget");
  if (budget === undefined || budget === 0) return undefined;
  if (budget < 0) return "medium";
  return effortOfBudget(budget);
}

/** Whether the client asked to see the model's thoughts. */
export const includeThoughts = (config: Json | undefined): boolean => field(objectField(config, "thinkingConfig"), "includeThoughts") === true;
