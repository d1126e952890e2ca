import { ECHO_MODELS } from "../echo-turn.js";

// The family lists them (`Family.echo`) whenever the echo upstream is asked for models; the echo's replies
// (`echo.ts`) load on the first model call (issue 52).

export function geminiModel(id: string) {
  return {
    name: `models/${id}`,
    version: "1",
    displayName: `Echo (${id})`,
    description: "The gateway's offline echo upstream.",
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    supportedGenerationMethods: ["generateContent", "countTokens"],
  };
}

export function geminiModelList() {
  return { models: ECHO_MODELS.map(geminiModel) };
}

/** A Gemini `GET models/{model}`: the model named, else undefined. */
const GEMINI_MODEL = /^\/v1(?:beta)?\/models\/([^:/]+)$/;

/** The echo upstream's answer to `GET models/{model}`, or undefined for any other path. */
export function geminiModelAt(rest: string) {
  const id = GEMINI_MODEL.exec(rest)?.[1];
  return id === undefined ? undefined : geminiModel(id);
}
