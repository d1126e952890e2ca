import Anthropic from "@anthropic-ai/sdk";
import { rmSync } from "node:fs";
import { GoogleGenAI, Type } from "@google/genai";
import { Ajv2020 } from "ajv/dist/2020.js";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleJson } from "../src/echo/json-sample.js";
import { cliEnv, runCli } from "./helpers/cli.js";
import { freePort } from "./helpers/free-port.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir, type TestGateway } from "./helpers/gateway.js";
import { readRequestLog } from "./helpers/request-records.js";
import { hasTool, privateDir, toolEnv } from "./helpers/tools.js";

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway("echo");
});
afterAll(() => gateway.close(0));

const openai = () => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
const anthropic = () => new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
const genai = () => new GoogleGenAI({ apiKey: LOCAL_KEY, httpOptions: { baseUrl: `${gateway.url}/gemini` } });

/** A schema with every kind of value, a reference, bounds and formats: what an application asks for. */
const SCHEMA = {
  type: "object",
  properties: {
    summary: { type: "string", minLength: 3, maxLength: 200 },
    mood: { type: "string", enum: ["calm", "busy"] },
    score: { type: "integer", minimum: 5, maximum: 10 },
    ratio: { type: "number", exclusiveMinimum: 0, maximum: 1 },
    done: { type: "boolean" },
    when: { type: "string", format: "date-time" },
    tags: { type: "array", items: { type: "string" }, minItems: 2, uniqueItems: true },
    steps: { type: "array", items: { $ref: "#/$defs/step" } },
    note: { anyOf: [{ type: "string" }, { type: "null" }] },
    kind: { const: "review" },
  },
  required: ["summary", "mood", "score", "ratio", "done", "when", "tags", "steps", "note", "kind"],
  additionalProperties: false,
  $defs: { step: { type: "object", properties: { title: { type: "string" }, n: { type: "integer" } }, required: ["title", "n"], additionalProperties: false } },
};

/** What the echo upstream answers to `SCHEMA` for a prompt: the echo where a free string fits. */
const expected = (echo: string) => ({
  summary: echo,
  mood: "calm",
  score: 5,
  ratio: 0.5,
  done: true,
  when: "2025-01-01T00:00:00Z",
  tags: [echo, `${echo} 2`],
  steps: [{ title: echo, n: 1 }],
  note: echo,
  kind: "review",
});

// Not strict: it checks values here, and loose schemas (no type beside properties, a tuple with more items) are
// schemas applications send.
const ajv = new Ajv2020({
  strict: false,
  allErrors: true,
  formats: { "date-time": (value: string) => !Number.isNaN(Date.parse(value)), email: /^[^@\s]+@[^@\s]+\.[^@\s]+$/ },
});

/** `text` parsed, after checking it against `schema` with an independent validator. */
function validJson(text: string | null | undefined, schema: object): unknown {
  const value: unknown = JSON.parse(text ?? "");
  const validate = ajv.compile(schema);
  expect(validate(value), ajv.errorsText(validate.errors)).toBe(true);
  return value;
}

/** Gemini's OpenAPI types (`Type.OBJECT`, ...) as JSON Schema's, for the validator. */
const lowerTypes = (schema: unknown): unknown =>
  Array.isArray(schema)
    ? schema.map(lowerTypes)
    : typeof schema === "object" && schema !== null
      ? Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === "type" && typeof value === "string" ? value.toLowerCase() : lowerTypes(value)]))
      : schema;

describe("sampleJson: a value that fits the schema, the text where a free string fits", () => {
  const text = "h🚀éllo";
  const person = { type: "object", properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } }, required: ["name", "age"] };
  const list = { $ref: "#/$defs/node", $defs: { node: { type: "object", properties: { next: { anyOf: [{ $ref: "#/$defs/node" }, { type: "null" }] } }, required: ["next"] } } };
  // [case, schema, the value expected (undefined: any that validates), the schema to validate with when not the same]
  it.each<[string, object | boolean, unknown, object?]>([
    ["a list of types: the first that is not null", { type: ["null", "string"] }, text],
    ["upper-case types (Gemini's)", { type: "OBJECT", properties: { n: { type: "INTEGER" } }, required: ["n"] }, { n: 1 }, { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }],
    ["no type but properties: an object, all of them when none is required", { properties: { a: { type: "boolean" }, b: { type: "null" } } }, { a: true, b: null }],
    ["only the required properties", { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, required: ["b"] }, { b: text }],
    ["a required name the properties leave out: additionalProperties", { type: "object", required: ["x"], additionalProperties: { type: "integer" } }, { x: 1 }],
    ["allOf merged", { allOf: [person, { type: "object", properties: { email: { type: "string", format: "email" } }, required: ["email"] }] }, { name: text, age: 0, email: "echo@example.com" }],
    ["oneOf: the first branch that is not null", { oneOf: [{ type: "null" }, { type: "number", maximum: -2 }] }, -2],
    ["a schema that refers to itself ends", list, undefined],
    ["prefixItems, then items", { type: "array", prefixItems: [{ type: "integer" }, { type: "boolean" }], items: { type: "string" }, minItems: 3 }, [1, true, text]],
    ["draft 4's boolean exclusive bounds", { type: "integer", minimum: 3, exclusiveMinimum: true, maximum: 9 }, 4, { type: "integer", exclusiveMinimum: 3, maximum: 9 }],
    ["an exclusive upper bound below one", { type: "number", exclusiveMaximum: 0 }, -0.5],
    ["multipleOf", { type: "integer", minimum: 4, multipleOf: 5 }, 5],
    ["maxLength cuts characters, not UTF-16 units", { type: "string", maxLength: 3 }, "h🚀é"],
    ["minLength pads", { type: "string", minLength: 8 }, `${text}..`],
    ["uniqueItems: the items differ", { type: "array", items: { type: "number" }, minItems: 3, uniqueItems: true }, [1, 2, 3]],
    ["maxItems 0", { type: "array", maxItems: 0 }, []],
    ["the schema true", true, text],
  ])("%s", (_, schema, value, validateAs) => {
    const sampled = sampleJson(schema, text);
    const validate = ajv.compile(validateAs ?? schema);
    expect(validate(sampled), ajv.errorsText(validate.errors)).toBe(true);
    if (value !== undefined) expect(sampled).toEqual(value);
  });
});

describe("the echo upstream answers structured-output requests with JSON that fits the schema", () => {
  it("chat completions: response_format json_schema, streaming and not, and json_object", async () => {
    const messages = [{ role: "user" as const, content: "Review this change" }];
    const response_format = { type: "json_schema" as const, json_schema: { name: "review", strict: true, schema: SCHEMA } };
    const reply = await openai().chat.completions.create({ model: "echo-1", messages, response_format });
    expect(validJson(reply.choices[0]!.message.content, SCHEMA)).toEqual(expected("echo: Review this change"));
    let streamed = "";
    for await (const chunk of await openai().chat.completions.create({ model: "echo-1", messages, response_format, stream: true })) streamed += chunk.choices[0]?.delta?.content ?? "";
    expect(validJson(streamed, SCHEMA)).toEqual(expected("echo: Review this change"));
    const object = await openai().chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "Answer in JSON" }], response_format: { type: "json_object" } });
    expect(JSON.parse(object.choices[0]!.message.content!)).toEqual({ text: "echo: Answer in JSON" });
  });

  it("Responses: text.format json_schema, streaming and not", async () => {
    const text = { format: { type: "json_schema" as const, name: "review", strict: true, schema: SCHEMA } };
    const reply = await openai().responses.create({ model: "echo-1", input: "Review this change", text });
    expect(validJson(reply.output_text, SCHEMA)).toEqual(expected("echo: Review this change"));
    let streamed = "";
    for await (const event of await openai().responses.create({ model: "echo-1", input: "Review this change", text, stream: true })) {
      if (event.type === "response.output_text.delta") streamed += event.delta;
    }
    expect(validJson(streamed, SCHEMA)).toEqual(expected("echo: Review this change"));
  });

  it("messages: output_config.format, streaming and not, and the beta's output_format", async () => {
    const request = { model: "echo-1", max_tokens: 200, messages: [{ role: "user" as const, content: "Review this change" }], output_config: { format: { type: "json_schema" as const, schema: SCHEMA } } };
    const reply = await anthropic().messages.create(request);
    expect(reply.content[0]!.type).toBe("text");
    expect(validJson((reply.content[0] as Anthropic.TextBlock).text, SCHEMA)).toEqual(expected("echo: Review this change"));
    const final = await anthropic().messages.stream(request).finalMessage();
    expect(validJson((final.content[0] as Anthropic.TextBlock).text, SCHEMA)).toEqual(expected("echo: Review this change"));
    const beta = await anthropic().beta.messages.create({ model: "echo-1", max_tokens: 200, messages: request.messages, output_format: { type: "json_schema", schema: SCHEMA } });
    expect(validJson((beta.content[0] as Anthropic.Beta.BetaTextBlock).text, SCHEMA)).toEqual(expected("echo: Review this change"));
  });

  it("Gemini: responseMimeType application/json with responseJsonSchema or responseSchema, streaming and not", async () => {
    const contents = "Review this change";
    const reply = await genai().models.generateContent({ model: "echo-1", contents, config: { responseMimeType: "application/json", responseJsonSchema: SCHEMA } });
    expect(validJson(reply.text, SCHEMA)).toEqual(expected("echo: Review this change"));
    let streamed = "";
    for await (const chunk of await genai().models.generateContentStream({ model: "echo-1", contents, config: { responseMimeType: "application/json", responseJsonSchema: SCHEMA } })) streamed += chunk.text ?? "";
    expect(validJson(streamed, SCHEMA)).toEqual(expected("echo: Review this change"));
    const openApi = {
      type: Type.OBJECT,
      properties: { verdict: { type: Type.STRING, enum: ["ship", "hold"] }, reasons: { type: Type.ARRAY, items: { type: Type.STRING } }, risk: { type: Type.NUMBER, nullable: true } },
      required: ["verdict", "reasons", "risk"],
      propertyOrdering: ["verdict", "reasons", "risk"],
    };
    const typed = await genai().models.generateContent({ model: "echo-1", contents, config: { responseMimeType: "application/json", responseSchema: openApi } });
    const { propertyOrdering: _, ...jsonSchema } = lowerTypes(openApi) as Record<string, unknown>;
    expect(validJson(typed.text, jsonSchema)).toEqual({ verdict: "ship", reasons: ["echo: Review this change"], risk: 1 });
    const anyJson = await genai().models.generateContent({ model: "echo-1", contents, config: { responseMimeType: "application/json" } });
    expect(JSON.parse(anyJson.text!)).toEqual({ text: "echo: Review this change" });
  });

  // Gemini CLI's model routers (packages/core/src/routing/strategies/classifierStrategy.ts and
  // numericalClassifierStrategy.ts) ask through BaseLlmClient.generateJson: `responseJsonSchema` written with the
  // SDK's upper-case `Type`, `responseMimeType: application/json`, a system instruction and the "classifier" model
  // config; a reply that does not parse as JSON is retried with backoff, five times in all.
  it.each([
    [
      "classifier",
      { type: Type.OBJECT, properties: { reasoning: { type: Type.STRING, description: "A brief, step-by-step explanation for the model choice, referencing the rubric." }, model_choice: { type: Type.STRING, enum: ["flash", "pro"] } }, required: ["reasoning", "model_choice"] },
      { model_choice: "flash" },
    ],
    [
      "numerical classifier",
      { type: Type.OBJECT, properties: { complexity_reasoning: { type: Type.STRING, description: "Brief explanation for the score." }, complexity_score: { type: Type.INTEGER, description: "Complexity score from 1-100." } }, required: ["complexity_reasoning", "complexity_score"] },
      // the router's own check of the reply: a score from 1 to 100
      { complexity_score: 1 },
    ],
  ])("Gemini CLI's %s request gets JSON its router accepts", async (_, schema, fields) => {
    const reply = await genai().models.generateContent({
      model: "gemini-3.5-flash-lite",
      contents: [{ role: "user", parts: [{ text: "hello from gemini cli" }] }],
      config: {
        systemInstruction: "You are a specialized Task Routing AI.",
        maxOutputTokens: 1024,
        thinkingConfig: { thinkingBudget: 512 },
        responseJsonSchema: schema,
        responseMimeType: "application/json",
      },
    });
    expect(validJson(reply.text, lowerTypes(schema) as object)).toMatchObject(fields);
  });
});

describe("Gemini CLI on the echo upstream, without -m", () => {
  // Its model router asks the echo upstream which model to use (the requests above); a text answer was retried
  // five times with backoff, a minute and a half, before the router gave up and the prompt went out.
  it.skipIf(!hasTool("gemini"))("asks its router once, takes its answer (a flash model), and prints the echo", async () => {
    const home = privateDir();
    const stateDir = privateDir();
    const env = cliEnv({ ...toolEnv(home), GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_STATE_DIR: stateDir, GATEWAY_PORT: String(await freePort()), GATEWAY_UPSTREAM: "echo" });
    try {
      const result = await runCli(["run", "gemini", "-p", "hello from gemini cli"], env, undefined, 170_000);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^echo: /);
      expect(result.stdout).toContain("hello from gemini cli");
      expect(result.stderr).not.toContain("Retry attempts exhausted");
      expect(result.stderr).not.toContain("ClassifierStrategy failed");
      const records = readRequestLog(stateDir);
      expect(records.filter((r) => r.path.endsWith(":generateContent"))).toHaveLength(1);
      const prompts = records.filter((r) => r.path.endsWith(":streamGenerateContent"));
      expect(prompts).toHaveLength(1);
      expect(prompts[0]!.model).toMatch(/^gemini-[\d.]+-flash/);
    } finally {
      await runCli(["stop"], env);
      for (const dir of [home, stateDir]) rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
