import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/index.js";
import { ConfigError } from "../src/errors/index.js";
import { KIND_NAMES, KINDS } from "../src/kinds/index.js";

/** The config of a fresh private directory holding `file` as config.json. */
function load(file: unknown) {
  const dir = mkdtempSync(join(tmpdir(), "gateway-kinds-config-"));
  writeFileSync(join(dir, "config.json"), JSON.stringify(file));
  return loadConfig({ env: { GATEWAY_CONFIG_DIR: dir } });
}

/** What the file is refused for, without the `Invalid configuration in <file>: ` prefix. */
function problem(file: unknown): string {
  try {
    load(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message.replace(/^Invalid configuration in [^:]+: /, "");
  }
  throw new Error("the config was accepted");
}

const one = (entry: Record<string, unknown>) => load({ upstreams: { local: entry } }).upstreams[0]!;

describe("an upstreams entry's kind (SPEC 11, Kinds)", () => {
  it("fills what the entry leaves out from its kind: a bare Ollama entry is Ollama at its usual address, keyless", () => {
    expect(one({ kind: "ollama" })).toMatchObject({
      name: "local",
      kind: "ollama",
      url: "http://127.0.0.1:11434",
      formats: ["chat"],
      messagesSegment: "",
      key: { kind: "none" },
      reasoning: "effort",
      maxOutputTokens: undefined,
      retries: 2,
    });
  });

  it("lets the entry's own fields win over its kind's, every one of them", () => {
    const upstream = one({
      kind: "ollama",
      url: "http://127.0.0.1:11500",
      formats: ["chat"],
      messagesSegment: "anthropic",
      key: "env:OLLAMA_KEY",
      maxOutputTokens: 8192,
      retries: 0,
    });
    expect(upstream).toMatchObject({
      kind: "ollama",
      url: "http://127.0.0.1:11500",
      formats: ["chat"],
      messagesSegment: "anthropic",
      key: { kind: "env", variable: "OLLAMA_KEY" },
      maxOutputTokens: 8192,
      retries: 0,
    });
  });

  it("resolves every kind that has a usual address from the kind alone, with its defaults", () => {
    for (const name of KIND_NAMES.filter((kind) => KINDS[kind].defaults.url !== undefined)) {
      const { defaults } = KINDS[name];
      expect(one({ kind: name }), name).toMatchObject({
        kind: name,
        url: defaults.url,
        formats: defaults.formats,
        messagesSegment: defaults.messagesSegment,
        geminiSegment: defaults.geminiSegment,
        key: { kind: defaults.key },
        reasoning: defaults.reasoning,
        retries: defaults.retries ?? 2,
      });
    }
  });

  it("gives a gateway that retries on its own no retries of the gateway's (LiteLLM, OpenRouter)", () => {
    expect(one({ kind: "litellm", url: "http://127.0.0.1:4000" })).toMatchObject({ retries: 0, messagesSegment: "", geminiSegment: "", key: { kind: "keychain" } });
    expect(one({ kind: "openrouter" })).toMatchObject({ retries: 0, url: "https://openrouter.ai/api", formats: ["chat"] });
  });

  it("is generic when left out: section 10's defaults, as before kinds", () => {
    expect(one({ url: "https://gateway.example.com" })).toMatchObject({
      kind: "generic",
      formats: ["chat", "responses", "messages", "gemini"],
      messagesSegment: "anthropic",
      geminiSegment: "gemini",
      key: { kind: "keychain" },
      reasoning: undefined,
    });
  });

  it("needs a url for LiteLLM and generic, and says so", () => {
    expect(problem({ upstreams: { team: { kind: "litellm" } } })).toBe(
      '"upstreams.team.url" must be set: a litellm upstream has no usual address, so give its base URL (e.g. "http://localhost:4000") (got nothing).',
    );
    expect(problem({ upstreams: { team: { kind: "generic" } } })).toBe(
      '"upstreams.team.url" must be set: a generic upstream has no usual address, so give its base URL (e.g. "http://localhost:4000") (got nothing).',
    );
  });

  it("refuses an unknown kind, naming the closest", () => {
    const known = KIND_NAMES.map((name) => `"${name}"`).join(", ");
    expect(problem({ upstreams: { local: { kind: "olama" } } })).toBe(`"upstreams.local.kind" must be one of ${known} (did you mean "ollama"?) (got "olama").`);
    expect(problem({ upstreams: { local: { kind: "llama.cpp" } } })).toBe(`"upstreams.local.kind" must be one of ${known} (did you mean "llamacpp"?) (got "llama.cpp").`);
    expect(problem({ upstreams: { local: { kind: 7 } } })).toBe(`"upstreams.local.kind" must be one of ${known} (got 7).`);
  });

  it("refuses a kind on an echo entry, other than generic", () => {
    expect(problem({ upstreams: { local: { url: "echo", kind: "ollama" } } })).toBe('"upstreams.local.kind" must be "generic", or absent: echo is a server of its own (got "ollama").');
    expect(one({ url: "echo", kind: "generic" })).toMatchObject({ kind: "generic", url: "echo", key: { kind: "none" } });
  });

  it("keeps an upstream made from a URL generic", () => {
    expect(load({ upstream: "https://gateway.example.com" }).upstreams[0]).toMatchObject({ name: "default", kind: "generic" });
  });
});
