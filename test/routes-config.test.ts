import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/index.js";
import { ConfigError } from "../src/errors/index.js";
import { globCovers, globsOverlap, globTest } from "../src/glob.js";

/** SPEC 11, Routes: the `routes` field as the config reads it, and the pattern language its conditions share. */

function configDir(file: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "gateway-routes-config-"));
  writeFileSync(join(dir, "config.json"), JSON.stringify(file));
  return dir;
}

const load = (file: unknown) => loadConfig({ env: { GATEWAY_CONFIG_DIR: configDir(file) } });

/** The message of a refused file, without its `Invalid configuration in <file>: ` prefix. */
function problem(file: unknown): string {
  const dir = configDir(file);
  try {
    loadConfig({ env: { GATEWAY_CONFIG_DIR: dir } });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).source).toBe("file");
    return (error as ConfigError).message.replace(`Invalid configuration in ${join(dir, "config.json")}: `, "");
  }
  throw new Error("the config was accepted");
}

const upstreams = { local: { kind: "ollama" }, vision: { url: "http://127.0.0.1:9000", key: "none" } };
const withRoutes = (routes: unknown, extra: Record<string, unknown> = {}) => ({ upstream: "echo", upstreams, routes, ...extra });

describe("routes in config.json", () => {
  it("keeps the rules in order, names the unnamed ones route-<n> by position, and is empty by default", () => {
    const config = load(withRoutes([{ name: "background", when: { model: "claude-haiku-*" }, to: "local", model: "qwen3-coder:30b" }, { when: { image: true }, to: "vision" }, { when: {}, to: "default" }]));
    expect(config.routes).toEqual([
      { name: "background", when: { model: "claude-haiku-*" }, to: "local", model: "qwen3-coder:30b" },
      { name: "route-2", when: { image: true }, to: "vision", model: undefined },
      { name: "route-3", when: {}, to: "default", model: undefined },
    ]);
    expect(Object.isFrozen(config.routes) && Object.isFrozen(config.routes[0]) && Object.isFrozen(config.routes[0]!.when)).toBe(true);
    expect(load({ upstream: "echo" }).routes).toEqual([]);
  });

  it("accepts every condition of SPEC 11", () => {
    const when = { model: "claude-*", format: "messages", client: "claude-code", image: false, minInputTokens: 60000, thinking: true, tools: "web_search*", tag: "review" };
    expect(load(withRoutes([{ when, to: "vision" }])).routes[0]!.when).toEqual(when);
    expect(load(withRoutes([{ when: { client: "OpenAI/JS *" }, to: "vision" }])).routes[0]!.when.client).toBe("OpenAI/JS *");
  });

  it("refuses an unknown `to`, naming the closest upstream (default only where `upstream` makes it)", () => {
    expect(problem(withRoutes([{ when: {}, to: "vison" }]))).toBe('"routes[0].to" must be the name of an upstream (did you mean "vision"?) (got "vison").');
    expect(problem(withRoutes([{ when: {}, to: "local" }, { when: {}, to: "elsewhere" }]))).toBe(
      '"routes[1].to" must be the name of an upstream (one of "default", "local", "vision") (got "elsewhere").',
    );
    expect(problem({ upstreams, routes: [{ when: {}, to: "default" }] })).toBe('"routes[0].to" must be the name of an upstream (one of "local", "vision") (got "default").');
  });

  it("refuses an unknown condition or field, naming the closest", () => {
    expect(problem(withRoutes([{ when: { modle: "x" }, to: "local" }]))).toBe('"routes[0].when.modle" must be absent: it is not a known field (did you mean "model"?) (got "x").');
    expect(problem(withRoutes([{ when: { minTokens: 5 }, to: "local" }]))).toBe(
      '"routes[0].when.minTokens" must be absent: it is not a known field (known fields: model, format, client, image, minInputTokens, thinking, tools, tag) (got 5).',
    );
    expect(problem(withRoutes([{ when: {}, to: "local", upstream: "local" }]))).toMatch(/^"routes\[0\]\.upstream" must be absent: it is not a known field/);
    expect(problem(withRoutes([{ to: "local" }]))).toBe('"routes[0].when" must be set: it is required (got nothing).');
  });

  it("refuses a client that is neither a known tool nor a pattern, naming the closest tool", () => {
    expect(problem(withRoutes([{ when: { client: "claude" }, to: "local" }]))).toBe(
      '"routes[0].when.client" must be one of "claude-code", "codex", "gemini-cli", "qwen-code", or a user-agent pattern with * (such as "OpenAI/JS*") (did you mean "claude-code"?) (got "claude").',
    );
  });

  it("refuses duplicate names (an explicit one that clashes with a default one too), bad values and a pattern as the model sent", () => {
    expect(problem(withRoutes([{ name: "a", when: {}, to: "local" }, { name: "a", when: {}, to: "vision" }]))).toBe(
      '"routes[1].name" must be a name no other rule has (rules without a name are called route-<n>, n their position from 1) (got "a").',
    );
    expect(problem(withRoutes([{ when: {}, to: "local" }, { name: "route-1", when: {}, to: "vision" }]))).toMatch(/^"routes\[1\]\.name" must be a name no other rule has/);
    expect(problem(withRoutes([{ name: "two words", when: {}, to: "local" }]))).toMatch(/^"routes\[0\]\.name" must be a rule name: 1-64 letters/);
    expect(problem(withRoutes([{ when: { format: "openai" }, to: "local" }]))).toBe('"routes[0].when.format" must be one of "chat", "responses", "messages", "gemini" (got "openai").');
    expect(problem(withRoutes([{ when: { image: "yes" }, to: "local" }]))).toBe('"routes[0].when.image" must be true or false (got "yes").');
    expect(problem(withRoutes([{ when: { minInputTokens: 0 }, to: "local" }]))).toBe('"routes[0].when.minInputTokens" must be an integer of at least 1, or a share of the model\'s context window from "1%" to "100%" (got 0).');
    expect(problem(withRoutes([{ when: { tag: "<x>" }, to: "local" }]))).toMatch(/^"routes\[0\]\.when\.tag" must be the NAME of a <gateway-route>NAME<\/gateway-route> tag/);
    expect(problem(withRoutes([{ when: {}, to: "local", model: "qwen*" }]))).toBe('"routes[0].model" must be a non-empty model id (no *) (got "qwen*").');
    expect(problem(withRoutes({ when: {}, to: "local" }))).toMatch(/^"routes" must be an array of rules/);
  });
});

describe("the pattern language (model ids, clients, tools)", () => {
  it("matches whole strings, * as any run of characters, nothing else special", () => {
    expect([globTest("claude-*")("claude-haiku-4-5"), globTest("claude-*")("xclaude-haiku"), globTest("a.b")("axb"), globTest("gpt-4o")("gpt-4o")]).toEqual([true, false, false, true]);
  });

  it("tells whether two patterns share a string, and whether one holds every string of another", () => {
    expect([globsOverlap("claude*", "*haiku*"), globsOverlap("claude-*", "gpt-*"), globsOverlap("claude*", "claude-sonnet-4-5"), globsOverlap("a*b", "*c"), globsOverlap("*", "")]).toEqual([
      true,
      false,
      true,
      false,
      true,
    ]);
    expect([globCovers("claude*", "claude-*"), globCovers("claude-*", "claude*"), globCovers("*", "claude*"), globCovers("claude-sonnet-4-5", "claude-sonnet-4-5"), globCovers("c*e*", "claude*"), globCovers("c*x*", "claude*")]).toEqual([
      true,
      false,
      true,
      true,
      true,
      false,
    ]);
  });
});
