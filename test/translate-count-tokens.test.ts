import { describe, expect, it } from "vitest";
import { countHubTokens, estimateHubTokens } from "../src/translate/count-tokens.js";
import type { HubRequest, HubTool } from "../src/translate/hub.js";
import { messagesClient } from "../src/formats/messages/translators.js";
import { testContext } from "./helpers/translate.js";

/**
 * Reference counts the estimate is measured against:
 * - OpenAI cookbook "How to count tokens with tiktoken" (openai/openai-cookbook, examples/How_to_count_tokens_with_tiktoken.ipynb),
 *   counts the OpenAI API reported for gpt-4o: 124 for the six-message "corporate jargon" chat, whose four `name` fields
 *   cost 14 of them (example_user 2 + 1, example_assistant 3 + 1, twice; the notebook's formula matches the API to the
 *   token), so 110 without names; 101 for the weather chat with its `get_current_weather` tool.
 * - The same weather request as a Qwen server sees it: Qwen2.5/Qwen3's chat template (tools as JSON in "# Tools ...
 *   <tools></tools>" instructions) rendered below and counted with o200k (Qwen's own vocabulary is close to it), each
 *   `<|im_start|>`/`<|im_end|>` one token: 227.
 * - Anthropic's token-counting docs: 14 for system "You are a scientist" + "Hello, Claude"; 403 for the `get_weather`
 *   tool + one question (Claude adds its own tool-use system prompt, ~346 tokens, which no chat upstream has).
 * Measured: jargon 111 (+1 % of 110), weather 216 (+114 % of OpenAI's 101, -5 % of the Qwen rendering's 227),
 * scientist 18 (+29 % of 14), Anthropic's weather 172 (-57 % of 403). Tools are where servers differ most; the
 * estimate follows the JSON-rendering templates of the open models a chat-only upstream serves.
 */

const WEATHER_TOOL: HubTool = {
  type: "function",
  function: {
    name: "get_current_weather",
    description: "Get the current weather in a given location",
    parameters: {
      type: "object",
      properties: {
        location: { type: "string", description: "The city and state, e.g. San Francisco, CA" },
        unit: { type: "string", description: "The unit of temperature to return", enum: ["celsius", "fahrenheit"] },
      },
      required: ["location"],
    },
  },
};
const WEATHER: HubRequest = {
  model: "m",
  messages: [
    { role: "system", content: "You are a helpful assistant that can answer to questions about the weather." },
    { role: "user", content: "What's the weather like in San Francisco?" },
  ],
  tools: [WEATHER_TOOL],
};
const JARGON: HubRequest = {
  model: "m",
  messages: [
    { role: "system", content: "You are a helpful, pattern-following assistant that translates corporate jargon into plain English." },
    { role: "system", content: "New synergies will help drive top-line growth." },
    { role: "system", content: "Things working well together will increase revenue." },
    { role: "system", content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage." },
    { role: "system", content: "Let's talk later when we're less busy about how to do better." },
    { role: "user", content: "This late pivot means we don't have time to boil the ocean for the client deliverable." },
  ],
};
const SCIENTIST: HubRequest = { model: "m", messages: [{ role: "system", content: "You are a scientist" }, { role: "user", content: "Hello, Claude" }] };
const ANTHROPIC_WEATHER: HubRequest = {
  model: "m",
  messages: [{ role: "user", content: "What's the weather like in San Francisco?" }],
  tools: [{ type: "function", function: { name: "get_weather", description: "Get the current weather in a given location", parameters: { type: "object", properties: { location: { type: "string", description: "The city and state, e.g. San Francisco, CA" } }, required: ["location"] } } }],
};

/** Python's `json.dumps` (what Jinja's `tojson` in Qwen's template prints): `", "` and `": "` separators. */
const pyJson = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(pyJson).join(", ")}]`
    : typeof value === "object" && value !== null
      ? `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${pyJson(item)}`).join(", ")}}`
      : JSON.stringify(value);

/** The weather request as Qwen's chat template renders it, counted with o200k, special tokens as one each. */
async function qwenRendering(): Promise<number> {
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  const [system, question] = WEATHER.messages.map((message) => message.content as string);
  const text =
    `system\n${system}\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n` +
    `You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n${pyJson(WEATHER_TOOL)}\n</tools>\n\n` +
    `For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n` +
    `<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>\nuser\n${question}\nassistant\n`;
  return countTokens(text) + 5;
}

const relativeError = (estimate: number, reference: number) => (estimate - reference) / reference;

describe("countHubTokens: an estimate of a translated request's input tokens", () => {
  it("matches the OpenAI API's count of a chat without tools within 5 %", async () => {
    expect(Math.abs(relativeError(await countHubTokens(JARGON), 110))).toBeLessThan(0.05);
  });

  it("counts tools as a JSON-rendering template does: within 10 % of Qwen's, never under OpenAI's", async () => {
    expect(await qwenRendering()).toBe(227);
    const estimate = await countHubTokens(WEATHER);
    expect(Math.abs(relativeError(estimate, 227))).toBeLessThan(0.1);
    expect(estimate).toBeGreaterThan(101);
  });

  it("stays near Anthropic's count of a small chat and below its tool prompt, as documented", async () => {
    expect(await countHubTokens(SCIENTIST)).toBe(18);
    expect(await countHubTokens(ANTHROPIC_WEATHER)).toBe(172);
  });

  it("is never below the text's characters divided by 4, even for text the tokenizer packs tightly", async () => {
    const repeated = "ab".repeat(200_000);
    expect(await countHubTokens({ model: "m", messages: [{ role: "user", content: repeated }] })).toBeGreaterThanOrEqual(100_000);
    for (const request of [WEATHER, JARGON, SCIENTIST]) {
      const characters = request.messages.reduce((sum, message) => sum + (message.content as string).length, 0);
      expect(await countHubTokens(request)).toBeGreaterThanOrEqual(Math.ceil(characters / 4));
    }
  });

  it("grows with the text", async () => {
    let previous = 0;
    for (const words of [1, 10, 100, 1000, 10000]) {
      const count = await countHubTokens({ model: "m", messages: [{ role: "user", content: "token ".repeat(words) }] });
      expect(count).toBeGreaterThan(previous);
      previous = count;
    }
  });

  it("counts an image as a fixed amount, whatever its bytes", async () => {
    const withImage = (data: string): HubRequest => ({ model: "m", messages: [{ role: "user", content: [{ type: "text", text: "what is this?" }, { type: "image_url", image_url: { url: `data:image/png;base64,${data}` } }] }] });
    const small = await countHubTokens(withImage("AAAA"));
    expect(await countHubTokens(withImage("A".repeat(2_000_000)))).toBe(small);
    expect(small - (await countHubTokens({ model: "m", messages: [{ role: "user", content: [{ type: "text", text: "what is this?" }] }] }))).toBe(1600);
  });

  it("counts tool calls, tool results and reasoning sent back", async () => {
    const base: HubRequest = { model: "m", messages: [{ role: "user", content: "run ls" }] };
    const call: HubRequest = { model: "m", messages: [...base.messages, { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "Bash", arguments: '{"command":"ls -la /usr/local/lib"}' } }] }] };
    const result: HubRequest = { model: "m", messages: [...call.messages, { role: "tool", tool_call_id: "c1", content: "total 0\ndrwxr-xr-x 2 root root 4096 node_modules" }] };
    const reasoning: HubRequest = { model: "m", messages: [...base.messages, { role: "assistant", content: "ok", reasoning_content: "The user wants a listing of the directory." }] };
    const counts = await Promise.all([base, call, result].map(countHubTokens));
    expect(counts[1]! - counts[0]!).toBeGreaterThan(12);
    expect(counts[2]! - counts[1]!).toBeGreaterThan(15);
    expect(await countHubTokens(reasoning)).toBeGreaterThan((await countHubTokens({ model: "m", messages: [...base.messages, { role: "assistant", content: "ok" }] })) + 8);
  });

  it("counts special-token look-alikes in user text as text", async () => {
    expect(await countHubTokens({ model: "m", messages: [{ role: "user", content: "<|endoftext|><|im_start|>" }] })).toBeGreaterThan(7);
  });

  it("stays fast on a long run without spaces (BPE is quadratic in one run)", async () => {
    let seed = 7;
    const letters = Array.from({ length: 400_000 }, () => String.fromCharCode(97 + ((seed = (seed * 1103515245 + 12345) % 2147483648) % 26))).join("");
    await countHubTokens({ model: "m", messages: [{ role: "user", content: "warm up" }] });
    const started = performance.now();
    expect(await countHubTokens({ model: "m", messages: [{ role: "user", content: letters }] })).toBeGreaterThanOrEqual(100_000);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("counts a Claude Code count_tokens body (no max_tokens) after translation: system, tools and messages", async () => {
    const { request } = messagesClient.toHub(
      {
        model: "claude-sonnet-4-5",
        system: [{ type: "text", text: "You are Claude Code. ".repeat(50) }],
        tools: [{ name: "Bash", description: "Run a command", input_schema: { type: "object", properties: { command: { type: "string" } } } }],
        messages: [{ role: "user", content: "hello" }],
      },
      testContext(),
    );
    const count = await countHubTokens(request);
    expect(count).toBeGreaterThan(250 + 90);
    expect(estimateHubTokens(request)).toBeGreaterThan(250);
  });
});

describe("estimateHubTokens: the quick estimate for message_start", () => {
  it("is the characters divided by 4 plus the fixed amounts, without loading the tokenizer", () => {
    expect(estimateHubTokens({ model: "m", messages: [{ role: "user", content: "x".repeat(400) }] })).toBe(3 + 4 + 100);
    expect(estimateHubTokens({ model: "m", messages: [] })).toBe(3);
  });
});
