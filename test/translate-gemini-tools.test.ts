import { describe, expect, it } from "vitest";
import { geminiClient } from "../src/formats/gemini/translators.js";
import type { Json } from "../src/translate/hub.js";
import { testContext } from "./helpers/translate.js";

/** Gemini -> chat requests: tool declarations, schemas, tool choice, generation and thinking settings. */

const contents = [{ role: "user", parts: [{ text: "hi" }] }];
const toHub = (body: Json) => geminiClient.toHub({ contents, ...body }, testContext());
const tools = (...functionDeclarations: Json[]) => [{ functionDeclarations }];

describe("tool declarations (table E row 21)", () => {
  it("OpenAPI-subset parameters: types lower-cased, nullable as a null type, counts as numbers, foreign keywords dropped", () => {
    const parameters = {
      type: "OBJECT",
      properties: {
        path: { type: "STRING", description: "file", nullable: true },
        mode: { type: "STRING", format: "enum", enum: ["r", "w"], nullable: true },
        lines: { type: "ARRAY", items: { type: "INTEGER", format: "int32" }, minItems: "1", maxItems: "5", example: [1] },
        either: { anyOf: [{ type: "STRING" }, { type: "NUMBER" }], nullable: true },
      },
      required: ["path"],
      propertyOrdering: ["path", "mode", "lines", "either"],
    };
    expect(toHub({ tools: tools({ name: "read", parameters }) }).request.tools).toEqual([
      {
        type: "function",
        function: {
          name: "read",
          parameters: {
            type: "object",
            properties: {
              path: { type: ["string", "null"], description: "file" },
              mode: { type: ["string", "null"], enum: ["r", "w", null] },
              lines: { type: "array", items: { type: "integer", format: "int32" }, minItems: 1, maxItems: 5 },
              either: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
            },
            required: ["path"],
          },
        },
      },
    ]);
  });

  it("parametersJsonSchema: $schema dropped, upper-case types lower-cased, a property named `type` kept as a property", () => {
    const parametersJsonSchema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { type: { type: "STRING", enum: ["a", "b"] }, tags: { type: "array", items: { type: "string" }, uniqueItems: true } },
      additionalProperties: false,
    };
    expect(toHub({ tools: tools({ name: "tag", description: "Tags.", parametersJsonSchema }) }).request.tools).toEqual([
      {
        type: "function",
        function: {
          name: "tag",
          description: "Tags.",
          parameters: {
            type: "object",
            properties: { type: { type: "string", enum: ["a", "b"] }, tags: { type: "array", items: { type: "string" }, uniqueItems: true } },
            additionalProperties: false,
          },
        },
      },
    ]);
  });

  it("a declaration without parameters gets an empty object schema; server-side tools and nameless declarations are left out", () => {
    const { request } = toHub({ tools: [{ googleSearch: {} }, { codeExecution: {} }, { urlContext: {} }, { googleSearchRetrieval: {} }, { functionDeclarations: [{ name: "now" }, { description: "no name" }] }] });
    expect(request.tools).toEqual([{ type: "function", function: { name: "now", parameters: { type: "object", properties: {} } } }]);
    expect(toHub({ tools: [{ googleSearch: {} }], toolConfig: { functionCallingConfig: { mode: "ANY" } } }).request).toEqual({
      model: "upstream-model",
      messages: [{ role: "user", content: "hi" }],
    });
  });

  it("names a chat server would refuse (MCP tools with dots) get stand-ins, in declarations and history, mapped back in replies", () => {
    const { request, hints } = toHub({
      contents: [...contents, { role: "model", parts: [{ functionCall: { id: "c", name: "mcp_docs.example.com__search", args: {} } }] }],
      tools: tools({ name: "mcp_docs.example.com__search" }, { name: "mcp_docs_example_com__search" }),
    });
    // The stand-in is the valid characters and a hash of the name (the one scheme of src/translate/tool-names.ts).
    const standIn = "mcp_docs_example_com__search_3ed20714";
    expect(request.tools?.map((tool) => tool.function.name)).toEqual([standIn, "mcp_docs_example_com__search"]);
    expect(request.messages[1]).toMatchObject({ tool_calls: [{ function: { name: standIn } }] });
    expect(hints.toolNames).toEqual(new Map([[standIn, { name: "mcp_docs.example.com__search", namespace: undefined, custom: false }]]));
    const reply = { id: "x", model: "m", choices: [{ index: 0, message: { role: "assistant" as const, content: null, tool_calls: [{ id: "k", type: "function" as const, function: { name: standIn, arguments: "{}" } }] }, finish_reason: "tool_calls" }] };
    expect(geminiClient.replyFromHub(reply, hints, testContext())).toMatchObject({ candidates: [{ content: { parts: [{ functionCall: { id: "k", name: "mcp_docs.example.com__search", args: {} } }] } }] });
  });
});

describe("toolConfig.functionCallingConfig", () => {
  const three = tools({ name: "a" }, { name: "b" }, { name: "c" });
  const choice = (functionCallingConfig: Json) => {
    const { request } = toHub({ tools: three, toolConfig: { functionCallingConfig } });
    return { choice: request.tool_choice, names: request.tools?.map((tool) => tool.function.name) };
  };

  it("AUTO, ANY, NONE and VALIDATED as auto, required, none and auto", () => {
    expect(choice({ mode: "AUTO" })).toEqual({ choice: "auto", names: ["a", "b", "c"] });
    expect(choice({ mode: "ANY" })).toEqual({ choice: "required", names: ["a", "b", "c"] });
    expect(choice({ mode: "NONE" })).toEqual({ choice: "none", names: ["a", "b", "c"] });
    expect(choice({ mode: "VALIDATED" })).toEqual({ choice: "auto", names: ["a", "b", "c"] });
    expect(choice({})).toEqual({ choice: undefined, names: ["a", "b", "c"] });
  });

  it("ANY with one allowed name names it; with several, only those tools are offered", () => {
    expect(choice({ mode: "ANY", allowedFunctionNames: ["b"] })).toEqual({ choice: { type: "function", function: { name: "b" } }, names: ["b"] });
    expect(choice({ mode: "ANY", allowedFunctionNames: ["a", "c"] })).toEqual({ choice: "required", names: ["a", "c"] });
    expect(choice({ mode: "VALIDATED", allowedFunctionNames: ["c"] })).toEqual({ choice: "auto", names: ["c"] });
  });
});

describe("generationConfig", () => {
  it("limits, sampling, penalties, seed and stops are carried; topK, candidateCount, safety, cache and labels are not", () => {
    const { request, hints } = toHub({
      generationConfig: { maxOutputTokens: 65536, temperature: 0.2, topP: 0.9, topK: 40, candidateCount: 2, stopSequences: ["###", ""], presencePenalty: 0.5, frequencyPenalty: 0.25, seed: 7 },
      safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
      cachedContent: "cachedContents/abc",
      labels: { team: "x" },
      model: "models/ignored",
    });
    expect(request).toEqual({
      model: "upstream-model",
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 65536,
      temperature: 0.2,
      top_p: 0.9,
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      seed: 7,
      stop: ["###"],
    });
    expect(hints).toEqual({ includeThoughts: false, jsonText: false });
  });

  it("JSON output: responseSchema (OpenAPI) as json_schema, no schema as json_object, other types as text", () => {
    const format = (generationConfig: Json) => toHub({ generationConfig });
    expect(format({ responseMimeType: "application/json", responseSchema: { type: "ARRAY", items: { type: "STRING" } } })).toMatchObject({
      request: { response_format: { type: "json_schema", json_schema: { name: "response", schema: { type: "array", items: { type: "string" } } } } },
      hints: { jsonText: true },
    });
    expect(format({ responseMimeType: "application/json" })).toMatchObject({ request: { response_format: { type: "json_object" } }, hints: { jsonText: true } });
    const plain = format({ responseMimeType: "text/plain", responseSchema: { type: "STRING" } });
    expect(plain.request.response_format).toBeUndefined();
    expect(plain.hints.jsonText).toBe(false);
  });

  it("thinking: budgets by the SPEC's thresholds, levels word for word, 0 leaves reasoning_effort out", () => {
    const effort = (thinkingConfig: Json) => toHub({ generationConfig: { thinkingConfig } }).request.reasoning_effort;
    expect([0, -1, 128, 2048, 2049, 8192, 8193, 32768].map((thinkingBudget) => effort({ thinkingBudget }))).toEqual([
      undefined,
      "medium",
      "low",
      "low",
      "medium",
      "medium",
      "high",
      "high",
    ]);
    expect(["MINIMAL", "LOW", "MEDIUM", "HIGH", "THINKING_LEVEL_UNSPECIFIED"].map((thinkingLevel) => effort({ thinkingLevel }))).toEqual(["low", "low", "medium", "high", undefined]);
    expect(effort({ includeThoughts: true })).toBeUndefined();
    expect(toHub({ generationConfig: { thinkingConfig: { includeThoughts: true } } }).hints.includeThoughts).toBe(true);
  });
});
