import { readFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { KINDS } from "../src/kinds/index.js";
import { patternSyntaxOf } from "../src/formats/chat/pattern-syntax.js";
import { fixSchema } from "../src/formats/chat/schema-quirks.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { patternsIn } from "./helpers/strict/chat-rules.js";
import { STRICT_KINDS, startStrictFake } from "./helpers/strict/index.js";
import { openaiRefusedPattern } from "./helpers/strict/openai.js";

/**
 * SPEC 12, Tool schemas a chat upstream refuses: a `pattern` (or `format`) the upstream's kind cannot compile moves
 * into its property's description. The fixture is Claude Code 2.1.332's own Artifact tool, as it sent it.
 */

const opened = closeAfterEach();

const ARTIFACT = JSON.parse(readFileSync(new URL("./fixtures/claude-code-2.1.332-artifact-tool.json", import.meta.url), "utf8")) as {
  version: string;
  tool: { name: string; description: string; input_schema: Record<string, unknown> };
};

describe("patterns a kind's validator cannot compile (SPEC 12)", () => {
  it("reads the syntax a pattern uses, an escaped character being a literal", () => {
    expect([...patternSyntaxOf("^(?!__.*__$)[^\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\"\\\\./[\\]]{1,200}$")].sort()).toEqual(["lookaround", "unicode-property"]);
    expect([...patternSyntaxOf("^[^\\u0000]*$")]).toEqual(["unicode-escape"]);
    expect([...patternSyntaxOf("^\\u{1F600}(?<=a)(?<!b)$")].sort()).toEqual(["code-point-escape", "lookaround"]);
    expect([...patternSyntaxOf("^(?>ab)a++b{2}+$")].sort()).toEqual(["atomic-group", "possessive-quantifier"]);
    expect([...patternSyntaxOf("^\\(?=[(?!)]\\++(?:x)(?<name>y)[a+]+?$")]).toEqual([]);
    expect([...patternSyntaxOf("^wf_[a-z0-9-]{6,}$")]).toEqual([]);
  });

  it("moves a refused pattern or format into the description, at any depth, and keeps the rest", () => {
    const schema = {
      type: "object",
      properties: {
        key: { type: "string", description: "A key", pattern: "^(?!__)[a-z]+$" },
        when: { type: "string", format: "date-time" },
        site: { type: "string", format: "uri" },
        nested: { type: "array", items: { anyOf: [{ type: "string", pattern: "^\\p{L}+$" }, { type: "string", pattern: "^[a-z]+$" }] } },
      },
    };
    expect(fixSchema(schema, KINDS.openai.quirks)).toEqual({
      type: "object",
      properties: {
        key: { type: "string", description: "A key (pattern: ^(?!__)[a-z]+$)" },
        when: { type: "string", format: "date-time" },
        site: { type: "string", description: "(format: uri)" },
        nested: { type: "array", items: { anyOf: [{ type: "string", description: "(pattern: ^\\p{L}+$)" }, { type: "string", pattern: "^[a-z]+$" }] } },
      },
    });
    expect(fixSchema({ type: "string", pattern: "^[^\\u0000]*$" }, KINDS.deepseek.quirks)).toEqual({ type: "string", description: "(pattern: ^[^\\u0000]*$)" });
    expect(fixSchema({ type: "string", pattern: "^[^\\u0000]*$" }, KINDS.openai.quirks)).toEqual({ type: "string", pattern: "^[^\\u0000]*$" });
    for (const kind of ["llamacpp", "vllm", "ollama", "lmstudio", "generic", "anthropic"] as const) {
      expect(KINDS[kind].quirks.refusedPatternSyntax, kind).toEqual([]);
      expect(KINDS[kind].quirks.schemaFormats, kind).toBe("any");
    }
  });

  it(`Claude Code ${ARTIFACT.version}'s Artifact tool reaches an OpenAI upstream that refuses its patterns: 200, each pattern in its description`, async () => {
    const upstream = opened(await startStrictFake(STRICT_KINDS.openai));
    const gateway = opened(await startTestGateway(undefined, { file: { capture: "all", upstreams: { openai: { kind: "openai", url: upstream.url, formats: ["chat"], key: "none", models: ["gpt-*"] } } } }));
    const client = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    const artifact = ARTIFACT.tool as unknown as Anthropic.Tool;
    // OpenAI refuses the tool as Claude Code sent it (its lookaheads).
    expect(openaiRefusedPattern(artifact.input_schema)).toBeDefined();

    const reply = await client.messages.create({ model: "gpt-5.1", max_tokens: 100, messages: [{ role: "user", content: "hi" }], tools: [artifact] });
    expect(reply.content[0]).toMatchObject({ type: "text", text: "ok" });

    const got = (upstream.received.at(-1)!.body!.tools as { function: { parameters: Record<string, unknown> } }[])[0]!.function.parameters;
    expect(openaiRefusedPattern(got)).toBeUndefined();
    const properties = got.properties as Record<string, { description?: string; pattern?: string }>;
    const docId = (artifact.input_schema as { properties: Record<string, { pattern: string }> }).properties.doc_id!.pattern;
    expect(properties.doc_id!.pattern).toBeUndefined();
    expect(properties.doc_id!.description).toContain(`(pattern: ${docId})`);
    // The contract's version pattern compiles everywhere: it stays where it was.
    expect(patternsIn(got).filter(({ path }) => path.join("/") === "properties/contract/anyOf/1/pattern")).toHaveLength(1);
    // The capture keeps what the client sent, patterns and all.
    const detail = (await (await fetch(`${gateway.url}/ui/api/requests/${gateway.records.at(-1)!.requestId}`, { headers: { authorization: `Bearer ${LOCAL_KEY}` } })).json()) as { capture: { request: { body: string } } };
    expect((JSON.parse(detail.capture.request.body) as { tools: { input_schema: unknown }[] }).tools[0]!.input_schema).toEqual(artifact.input_schema);
  });

  it("Claude Code 2.1.265's Artifact pattern (SPEC 12's): OpenAI's strict fake refuses it sent directly with its 400, and the same request through the gateway succeeds", async () => {
    const upstream = opened(await startStrictFake(STRICT_KINDS.openai));
    const pattern = String.raw`^(?!__.*__$)[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}"\\./[\]]{1,200}$`;
    const parameters = { type: "object", properties: { title: { type: "string", pattern } }, required: ["title"] };
    const direct = await fetch(`${upstream.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-5.1", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "Artifact", parameters } }] }),
    });
    expect(direct.status).toBe(400);
    expect(((await direct.json()) as { error: { message: string } }).error.message).toBe(String.raw`Invalid schema for function 'Artifact': '^(?!__.*__$)[^\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}"\\\\./[\\]]{1,200}$' is not a 'regex'.`);

    const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { openai: { kind: "openai", url: upstream.url, formats: ["chat"], key: "none", models: ["gpt-*"] } } } }));
    const client = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    const reply = await client.messages.create({ model: "gpt-5.1", max_tokens: 100, messages: [{ role: "user", content: "hi" }], tools: [{ name: "Artifact", input_schema: parameters as Anthropic.Tool.InputSchema }] });
    expect(reply.content[0]).toMatchObject({ type: "text", text: "ok" });
    const sent = (upstream.received.at(-1)!.body!.tools as { function: { parameters: { properties: { title: { pattern?: string; description?: string } } } } }[])[0]!.function.parameters;
    expect(sent.properties.title).toEqual({ type: "string", description: `(pattern: ${pattern})` });
  });
});
