import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, type ConfigFlags, type UpstreamConfig } from "../src/config/index.js";
import { ConfigError } from "../src/errors/index.js";

/** A fresh private (0700) config directory holding `file` as config.json, when given. */
function configDir(file?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "gateway-config-test-"));
  if (file !== undefined) writeFileSync(join(dir, "config.json"), typeof file === "string" ? file : JSON.stringify(file));
  return dir;
}

function load(file?: unknown, options: { env?: Record<string, string>; flags?: ConfigFlags } = {}) {
  return loadConfig({ env: { GATEWAY_CONFIG_DIR: configDir(file), ...options.env }, flags: options.flags });
}

/** The ConfigError `load` throws, with `<file>` in place of the config file's path. */
function refusal(file?: unknown, options: { env?: Record<string, string>; flags?: ConfigFlags } = {}) {
  const dir = configDir(file);
  try {
    loadConfig({ env: { GATEWAY_CONFIG_DIR: dir, ...options.env }, flags: options.flags });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const { message, source } = error as ConfigError;
    return { message: message.replace(join(dir, "config.json"), "<file>"), source };
  }
  throw new Error("the config was accepted");
}

/** The message of a refused file, without its `Invalid configuration in <file>: ` prefix. */
const fileProblem = (file: unknown, options: { env?: Record<string, string>; flags?: ConfigFlags } = {}) => {
  const { message, source } = refusal(file, options);
  expect(source).toBe("file");
  return message.replace("Invalid configuration in <file>: ", "");
};

const byName = (upstreams: readonly UpstreamConfig[]) => Object.fromEntries(upstreams.map((upstream) => [upstream.name, upstream]));

const ALL_FORMATS = ["chat", "responses", "messages", "gemini"];
const TOP_TIMEOUTS = { connectMs: 10_000, firstByteMs: 600_000, idleMs: 300_000 };

describe("a single upstream, as before several", () => {
  it("resolves a URL into one upstream called default, with the top-level segments, retries, timeouts and version", () => {
    const config = load({
      upstream: "https://gateway.example.com/base/",
      messagesSegment: "claude",
      geminiSegment: "",
      retries: 1,
      timeouts: { idleMs: 5_000 },
      anthropicVersion: "2023-06-01",
    });
    expect(config.upstream).toBe("https://gateway.example.com/base");
    expect(config.messagesSegment).toBe("claude");
    expect(config.geminiSegment).toBe("");
    expect(config.defaultUpstream).toBe("default");
    expect(config.upstreams).toEqual([
      {
        name: "default",
        kind: "generic",
        url: "https://gateway.example.com/base",
        formats: ALL_FORMATS,
        messagesSegment: "claude",
        geminiSegment: "",
        key: { kind: "keychain" },
        models: [],
        fallback: [],
        reasoning: undefined,
        maxOutputTokens: undefined,
        headers: {},
        keyHeader: undefined,
        retries: 1,
        timeouts: { connectMs: 10_000, firstByteMs: 600_000, idleMs: 5_000 },
        anthropicVersion: "2023-06-01",
        budgets: {},
        team: false,
      },
    ]);
  });

  it("is the echo upstream, needing no key, when nothing is configured", () => {
    const config = load();
    expect(config.upstream).toBe("echo");
    expect(config.defaultUpstream).toBe("default");
    expect(config.upstreams).toHaveLength(1);
    expect(config.upstreams[0]).toMatchObject({ name: "default", url: "echo", formats: ALL_FORMATS, key: { kind: "none" }, messagesSegment: "anthropic", geminiSegment: "gemini" });
  });

  it("freezes the config, every upstream and everything inside them", () => {
    const config = load({ upstream: "https://a.example.com", upstreams: { b: { url: "https://b.example.com", headers: { "X-Title": "t" }, models: ["m"], timeouts: { idleMs: 9 } } } });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.upstreams)).toBe(true);
    for (const upstream of config.upstreams) {
      for (const value of [upstream, upstream.formats, upstream.key, upstream.models, upstream.fallback, upstream.headers, upstream.timeouts]) {
        expect(Object.isFrozen(value)).toBe(true);
      }
    }
  });
});

describe("upstreams", () => {
  const entries = {
    remote: { url: "https://gateway.example.com", retries: 0 },
    local: { url: "http://localhost:11434/", key: "none", formats: ["chat"], models: ["qwen*", " llama3 "], timeouts: { firstByteMs: 1_000 } },
  };

  it("makes the first entry the default when upstream is unset, and no upstream called default", () => {
    const config = load({ upstreams: entries });
    expect(config.defaultUpstream).toBe("remote");
    expect(config.upstream).toBe("https://gateway.example.com");
    expect(config.upstreams.map((upstream) => upstream.name)).toEqual(["remote", "local"]);
  });

  it("lists the upstream a URL makes first, as default, then the entries in file order", () => {
    const config = load({ upstream: "echo", upstreams: entries });
    expect(config.defaultUpstream).toBe("default");
    expect(config.upstreams.map((upstream) => upstream.name)).toEqual(["default", "remote", "local"]);
    expect(config.upstreams[0]).toMatchObject({ url: "echo", key: { kind: "none" } });
  });

  it("makes the entry upstream names the default, and config.upstream its URL", () => {
    const config = load({ upstream: "local", upstreams: entries });
    expect(config.defaultUpstream).toBe("local");
    expect(config.upstream).toBe("http://localhost:11434");
    expect(config.upstreams.map((upstream) => upstream.name)).toEqual(["remote", "local"]);
  });

  it("fills an entry from the built-in segments and the top-level retries, timeouts (per field) and version", () => {
    const config = load({ messagesSegment: "claude", geminiSegment: "gem", retries: 4, timeouts: { connectMs: 2_000 }, anthropicVersion: "2024-01-01", upstreams: entries });
    const { remote, local } = byName(config.upstreams);
    expect(remote).toEqual({
      name: "remote",
      kind: "generic",
      url: "https://gateway.example.com",
      formats: ALL_FORMATS,
      messagesSegment: "anthropic",
      geminiSegment: "gemini",
      key: { kind: "keychain" },
      models: [],
      fallback: [],
      reasoning: undefined,
      maxOutputTokens: undefined,
      headers: {},
      keyHeader: undefined,
      retries: 0,
      timeouts: { connectMs: 2_000, firstByteMs: 600_000, idleMs: 300_000 },
      anthropicVersion: "2024-01-01",
      budgets: {},
      team: false,
    });
    expect(local).toMatchObject({ url: "http://localhost:11434", formats: ["chat"], key: { kind: "none" }, models: ["qwen*", "llama3"], retries: 4 });
    expect(local!.timeouts).toEqual({ connectMs: 2_000, firstByteMs: 1_000, idleMs: 300_000 });
  });

  it("keeps every field an entry sets", () => {
    const config = load({
      upstreams: {
        or: {
          url: "https://openrouter.ai/api",
          formats: ["messages", "chat"],
          messagesSegment: "",
          geminiSegment: "",
          key: "env:OPENROUTER_API_KEY",
          models: ["anthropic/*"],
          fallback: ["azure"],
          reasoning: "effort",
          maxOutputTokens: 16_000,
          headers: { "HTTP-Referer": "https://example.com", "X-Title": "gateway" },
          keyHeader: "api-key",
          retries: 0,
          timeouts: { connectMs: 1, firstByteMs: 2, idleMs: 3 },
          anthropicVersion: "2023-06-01",
        },
        azure: { url: "https://example.openai.azure.com/openai", keyHeader: "api-key" },
      },
    });
    expect(config.upstreams[0]).toEqual({
      name: "or",
      kind: "generic",
      url: "https://openrouter.ai/api",
      formats: ["messages", "chat"],
      messagesSegment: "",
      geminiSegment: "",
      key: { kind: "env", variable: "OPENROUTER_API_KEY" },
      models: ["anthropic/*"],
      fallback: ["azure"],
      reasoning: "effort",
      maxOutputTokens: 16_000,
      headers: { "HTTP-Referer": "https://example.com", "X-Title": "gateway" },
      keyHeader: "api-key",
      retries: 0,
      timeouts: { connectMs: 1, firstByteMs: 2, idleMs: 3 },
      anthropicVersion: "2023-06-01",
      budgets: {},
      team: false,
    });
  });

  it("allows the same model pattern on two upstreams (routing takes the first)", () => {
    const config = load({ upstreams: { a: { url: "https://a.example.com", models: ["gpt-*"] }, b: { url: "https://b.example.com", models: ["gpt-*"] } } });
    expect(config.upstreams.map((upstream) => upstream.models)).toEqual([["gpt-*"], ["gpt-*"]]);
  });

  it("gives an echo entry all four formats and no key; refuses one that narrows them or asks for a key", () => {
    const config = load({ upstreams: { offline: { url: "echo", key: "none", formats: ["gemini", "chat", "messages", "responses"] } } });
    expect(config.upstreams[0]).toMatchObject({ url: "echo", key: { kind: "none" } });
    expect(fileProblem({ upstreams: { offline: { url: "echo", formats: ["chat"] } } })).toBe(
      '"upstreams.offline.formats" must be every format, or absent: echo serves every format (got ["chat"]).',
    );
    expect(fileProblem({ upstreams: { offline: { url: "echo", key: "keychain" } } })).toBe('"upstreams.offline.key" must be "none", or absent: echo needs no key (got "keychain").');
  });

  it("treats an empty upstreams object as none", () => {
    const config = load({ upstreams: {} });
    expect(config.upstreams.map((upstream) => [upstream.name, upstream.url])).toEqual([["default", "echo"]]);
  });
});

describe("upstream: a URL, echo or an entry's name, from the file, GATEWAY_UPSTREAM or --upstream", () => {
  const file = { upstream: "a", upstreams: { a: { url: "https://a.example.com" }, b: { url: "https://b.example.com" } } };

  it("takes the flag over the environment over the file", () => {
    expect(load(file).defaultUpstream).toBe("a");
    expect(load(file, { env: { GATEWAY_UPSTREAM: "b" } }).defaultUpstream).toBe("b");
    const flagged = load(file, { env: { GATEWAY_UPSTREAM: "b" }, flags: { upstream: "https://c.example.com/" } });
    expect(flagged.defaultUpstream).toBe("default");
    expect(flagged.upstream).toBe("https://c.example.com");
    expect(flagged.upstreams.map((upstream) => upstream.name)).toEqual(["default", "a", "b"]);
    expect(load(file, { env: { GATEWAY_UPSTREAM: "" } }).defaultUpstream).toBe("a");
  });

  it("refuses an unknown name in the file, naming the closest one (exit 1)", () => {
    expect(fileProblem({ ...file, upstream: "bb" })).toBe(
      '"upstream" must be "echo", a URL such as https://gateway.example.com, or the name of an upstreams entry (did you mean "b"?) (got "bb").',
    );
  });

  it("refuses an unknown name in GATEWAY_UPSTREAM as the environment's (exit 1)", () => {
    expect(refusal(file, { env: { GATEWAY_UPSTREAM: "aa" } })).toEqual({
      message:
        'Invalid configuration in GATEWAY_UPSTREAM: "GATEWAY_UPSTREAM" must be "echo", a URL such as https://gateway.example.com, or the name of an upstreams entry (did you mean "a"?) (got "aa").',
      source: "env",
    });
  });

  it("refuses an unknown name given with --upstream as usage (exit 2)", () => {
    expect(refusal(file, { flags: { upstream: "remote" } })).toEqual({
      message:
        'Invalid configuration in the command line: "--upstream" must be "echo", a URL such as https://gateway.example.com, or the name of an upstreams entry (one of "a", "b") (got "remote").',
      source: "flag",
    });
  });

  it("says there are no entries when a name is given without upstreams", () => {
    expect(fileProblem({ upstream: "gateway" })).toBe(
      '"upstream" must be "echo", a URL such as https://gateway.example.com, or the name of an upstreams entry (there are none) (got "gateway").',
    );
    expect(fileProblem({ upstream: "default", upstreams: { a: { url: "echo" } } })).toContain('(one of "a") (got "default").');
  });

  it("says what is expected of a value that is neither a URL, echo nor a name", () => {
    expect(fileProblem({ upstream: "my_gateway" })).toBe(
      '"upstream" must be "echo", a URL such as https://gateway.example.com, or the name of an upstreams entry (got "my_gateway").',
    );
    expect(fileProblem({ upstream: "http://gateway.example.com" })).toBe(
      '"upstream" must be an https:// URL (plain http:// is only allowed for loopback hosts) (got "http://gateway.example.com").',
    );
    expect(fileProblem({ upstream: "" })).toBe('"upstream" must be a non-empty string (got "").');
  });
});

describe("an upstreams entry", () => {
  const entry = (fields: Record<string, unknown>) => ({ upstreams: { local: { url: "http://127.0.0.1:8080", ...fields } } });

  it("needs a url: https, http only for loopback, no credentials, query or fragment, or echo", () => {
    expect(fileProblem({ upstreams: { local: { key: "none" } } })).toBe(
      '"upstreams.local.url" must be set: it is required unless "kind" names a server with a usual address (openai, anthropic, gemini, openrouter, deepseek, ollama, vllm, llamacpp, lmstudio) (got nothing).',
    );
    expect(fileProblem(entry({ url: "http://ollama.lan:11434" }))).toBe(
      '"upstreams.local.url" must be an https:// URL (plain http:// is only allowed for loopback hosts) (got "http://ollama.lan:11434").',
    );
    // The message never repeats the credentials it refuses.
    expect(fileProblem(entry({ url: "https://user:pw@example.com" }))).toBe(
      '"upstreams.local.url" must be a base URL without credentials, query or fragment (got "https://***@example.com").',
    );
    expect(fileProblem(entry({ url: "https://example.com/?a=1" }))).toContain("without credentials, query or fragment");
    expect(fileProblem(entry({ url: "local" }))).toBe('"upstreams.local.url" must be "echo" or a URL such as https://gateway.example.com (got "local").');
  });

  it("refuses an unknown field, naming the closest known one", () => {
    expect(fileProblem(entry({ modles: ["x"] }))).toBe('"upstreams.local.modles" must be absent: it is not a known field (did you mean "models"?) (got ["x"]).');
    expect(fileProblem(entry({ timeouts: { idle: 5 } }))).toBe(
      '"upstreams.local.timeouts.idle" must be absent: it is not a known field (did you mean "idleMs"?) (got 5).',
    );
    expect(fileProblem({ upstreams: { local: "http://localhost" } })).toBe(
      '"upstreams.local" must be an object with a url or a kind, e.g. {"kind": "ollama"} or {"url": "https://gateway.example.com"} (got "http://localhost").',
    );
  });

  it("refuses names that are not 1-32 characters of a-z, 0-9 and -, and default and echo", () => {
    const expected = 'an object whose keys are upstream names: 1-32 characters of a-z, 0-9 and "-", not "default" or "echo"';
    for (const name of ["Local", "my_server", "", "a".repeat(33), "default", "echo"]) {
      expect(fileProblem({ upstreams: { [name]: { url: "echo" } } }), name).toBe(`"upstreams" must be ${expected} (got ${JSON.stringify(name)}).`);
    }
    expect(load({ upstreams: { ["a".repeat(32)]: { url: "echo" }, "0-x": { url: "echo" } } }).upstreams).toHaveLength(2);
    expect(fileProblem('{"upstreams": {"constructor": {"url": "echo"}}}')).toBe(
      '"upstreams" must be an object without the keys "__proto__", "constructor" and "prototype" (got "constructor").',
    );
  });

  it("refuses empty, unknown and repeated formats", () => {
    const expected = 'a non-empty array of distinct formats: "chat", "responses", "messages", "gemini"';
    expect(fileProblem(entry({ formats: [] }))).toBe(`"upstreams.local.formats" must be ${expected} (got []).`);
    expect(fileProblem(entry({ formats: ["chat", "completions"] }))).toBe(`"upstreams.local.formats" must be ${expected} (got "completions").`);
    expect(fileProblem(entry({ formats: ["chat", "chat"] }))).toBe(`"upstreams.local.formats" must be ${expected} (got ["chat","chat"]).`);
    expect(fileProblem(entry({ formats: "chat" }))).toBe(`"upstreams.local.formats" must be ${expected} (got "chat").`);
  });

  it("takes key keychain, none, client or env:<VAR>, and refuses every other form", () => {
    const keyOf = (key: string) => load(entry({ key })).upstreams[0]!.key;
    expect(keyOf("keychain")).toEqual({ kind: "keychain" });
    expect(keyOf("none")).toEqual({ kind: "none" });
    expect(keyOf("client")).toEqual({ kind: "client" });
    expect(keyOf("env:_MY_KEY2")).toEqual({ kind: "env", variable: "_MY_KEY2" });
    const expected =
      '"keychain", "none", "client", "env:" and the name of an environment variable (e.g. "env:OPENROUTER_API_KEY"), "keychain:<label>", or an array of distinct keys that take turns (e.g. ["keychain:work", "env:SPARE_KEY"])';
    for (const key of ["env:", "env:1KEY", "env:MY-KEY", "ENV:KEY", "env: KEY", "sk-abc", "", 5, null]) {
      expect(fileProblem(entry({ key })), String(key)).toBe(`"upstreams.local.key" must be ${expected} (got ${JSON.stringify(key)}).`);
    }
    // A key pasted where its source belongs is the likeliest mistake here: the message does not repeat it.
    expect(fileProblem(entry({ key: "sk-proj-0123456789abcdef" }))).toBe(`"upstreams.local.key" must be ${expected} (got a value not shown here, since it may be a key).`);
  });

  it("refuses a credential in headers, pointing at key and keyHeader, without showing its value", () => {
    for (const name of ["Authorization", "x-api-key", "X-Goog-Api-Key", "api-key", "x-portkey-api-key", "Cookie"]) {
      const problem = fileProblem(entry({ headers: { [name]: "sk-secret-value" } }));
      expect(problem, name).toBe(
        `"upstreams.local.headers" must be free of credentials: give the key with "key" (the keychain, or "env:<VAR>") and its header with "keyHeader" (got "${name}").`,
      );
      expect(problem).not.toContain("sk-secret-value");
    }
  });

  it("refuses hop-by-hop and framing headers, bad names, bad values and a name given twice", () => {
    const connection = "free of connection headers (hop-by-hop ones, Host, Content-Length): the gateway sets those itself";
    for (const name of ["Connection", "keep-alive", "Transfer-Encoding", "TE", "Upgrade", "Host", "content-length"]) {
      expect(fileProblem(entry({ headers: { [name]: "x" } })), name).toBe(`"upstreams.local.headers" must be ${connection} (got "${name}").`);
    }
    expect(fileProblem(entry({ headers: { "X Title": "x" } }))).toBe(
      '"upstreams.local.headers" must be an object whose keys are header names such as "X-Title" (got "X Title").',
    );
    expect(fileProblem(entry({ headers: { "X-Title": "a\r\nX-Injected: 1" } }))).toBe(
      '"upstreams.local.headers["X-Title"]" must be a string without line breaks or control characters (got "a\\r\\nX-Injected: 1").',
    );
    expect(fileProblem(entry({ headers: { "X-Title": 5 } }))).toContain('"upstreams.local.headers["X-Title"]" must be a string');
    expect(fileProblem(entry({ headers: { "X-Title": "a", "x-title": "b" } }))).toBe(
      '"upstreams.local.headers" must be an object that names each header once (header names ignore case) (got {"X-Title":"a","x-title":"b"}).',
    );
    expect(fileProblem(entry({ headers: ["X-Title"] }))).toBe(
      '"upstreams.local.headers" must be an object of header names to values, e.g. {"X-Title": "my-app"} (got ["X-Title"]).',
    );
  });

  it("takes a header name as keyHeader, never a connection header", () => {
    expect(load(entry({ keyHeader: "x-portkey-api-key" })).upstreams[0]!.keyHeader).toBe("x-portkey-api-key");
    expect(fileProblem(entry({ keyHeader: "api key" }))).toBe('"upstreams.local.keyHeader" must be a header name such as api-key (got "api key").');
    expect(fileProblem(entry({ keyHeader: "Connection" }))).toContain('"upstreams.local.keyHeader" must be free of connection headers');
  });

  it("checks models, reasoning, maxOutputTokens, retries, timeouts and anthropicVersion", () => {
    expect(fileProblem(entry({ models: ["qwen*", " "] }))).toBe(
      '"upstreams.local.models" must be an array of non-empty model ids, each exact or with * (any run of characters) (got " ").',
    );
    expect(fileProblem(entry({ reasoning: "high" }))).toBe('"upstreams.local.reasoning" must be "effort" (it accepts chat\'s reasoning_effort), or absent (got "high").');
    expect(fileProblem(entry({ maxOutputTokens: 0 }))).toBe('"upstreams.local.maxOutputTokens" must be an integer of at least 1 (got 0).');
    expect(fileProblem(entry({ retries: -1 }))).toBe('"upstreams.local.retries" must be an integer from 0 to 10 (got -1).');
    expect(fileProblem(entry({ timeouts: { idleMs: "soon" } }))).toBe('"upstreams.local.timeouts.idleMs" must be an integer from 1 to 86400000 (got "soon").');
    expect(fileProblem(entry({ anthropicVersion: " " }))).toBe('"upstreams.local.anthropicVersion" must be a non-empty string (got " ").');
  });
});

describe("fallback", () => {
  const two = (fallback: unknown, extra: Record<string, unknown> = {}) => ({
    ...extra,
    upstreams: { local: { url: "http://localhost:11434", key: "none", fallback }, remote: { url: "https://gateway.example.com" } },
  });

  it("names upstreams that exist, default among them when upstream makes it", () => {
    expect(load(two(["remote"])).upstreams[0]!.fallback).toEqual(["remote"]);
    expect(byName(load(two(["remote", "default"], { upstream: "echo" })).upstreams).local!.fallback).toEqual(["remote", "default"]);
  });

  it("refuses an unknown name, naming the closest", () => {
    expect(fileProblem(two(["remot"]))).toBe('"upstreams.local.fallback" must be names of upstreams (did you mean "remote"?) (got "remot").');
    expect(fileProblem(two(["elsewhere"]))).toBe('"upstreams.local.fallback" must be names of upstreams (one of "remote") (got "elsewhere").');
  });

  it("refuses the entry's own name", () => {
    expect(fileProblem(two(["remote", "local"]))).toBe('"upstreams.local.fallback" must be names of other upstreams, not its own (got "local").');
  });

  it("refuses default when no upstream is called so, whichever source chose the default", () => {
    const expected = '"upstreams.local.fallback" must be names of upstreams: "default" exists only when "upstream" is a URL or "echo" (got "default").';
    expect(fileProblem(two(["default"]))).toBe(expected);
    expect(fileProblem(two(["default"], { upstream: "remote" }))).toBe(expected);
    expect(fileProblem(two(["default"], { upstream: "echo" }), { flags: { upstream: "remote" } })).toBe(expected);
  });

  it("must be an array of names", () => {
    expect(fileProblem(two("remote"))).toBe('"upstreams.local.fallback" must be an array of upstream names (got "remote").');
  });
});

describe("segments", () => {
  const expected = 'one path segment of letters, digits, "-", "_", "." or "~" (not "v1", "v1beta", "health" or "ui"), or "" for none';

  it('may be "" in the file, in an entry and with the flag; an empty variable is unset', () => {
    expect(load({ messagesSegment: "", geminiSegment: "" })).toMatchObject({ messagesSegment: "", geminiSegment: "" });
    expect(load({}, { flags: { messagesSegment: "", geminiSegment: "" } })).toMatchObject({ messagesSegment: "", geminiSegment: "" });
    expect(load({ messagesSegment: "claude" }, { env: { GATEWAY_MESSAGES_SEGMENT: "" } }).messagesSegment).toBe("claude");
    const entry = load({ upstreams: { a: { url: "https://api.anthropic.com", messagesSegment: "", geminiSegment: "" } } }).upstreams[0]!;
    expect([entry.messagesSegment, entry.geminiSegment]).toEqual(["", ""]);
  });

  it("refuses two equal non-empty segments, wherever they come from", () => {
    const clash = { message: 'The Gemini and messages segments are both "same".', source: "file" };
    expect(refusal({ messagesSegment: "same", geminiSegment: "same" })).toEqual(clash);
    // A clash a flag made is usage, exit 2 (`start --gemini-segment anthropic`).
    expect(refusal({ geminiSegment: "same" }, { flags: { messagesSegment: "same" } })).toEqual({ ...clash, source: "flag" });
    expect(refusal({ messagesSegment: "gemini" })).toEqual({ message: 'The Gemini and messages segments are both "gemini".', source: "file" });
  });

  it("refuses what is not one segment, naming the source", () => {
    expect(fileProblem({ messagesSegment: "a/b" })).toBe(`"messagesSegment" must be ${expected} (got "a/b").`);
    expect(fileProblem({ geminiSegment: " " })).toBe(`"geminiSegment" must be ${expected} (got " ").`);
    expect(fileProblem({ messagesSegment: 5 })).toBe(`"messagesSegment" must be ${expected} (got 5).`);
    expect(fileProblem({ upstreams: { a: { url: "echo", geminiSegment: "v1beta" } } })).toBe(`"upstreams.a.geminiSegment" must be ${expected} (got "v1beta").`);
    expect(refusal({}, { env: { GATEWAY_GEMINI_SEGMENT: "x y" } })).toEqual({
      message: `Invalid configuration in GATEWAY_GEMINI_SEGMENT: "GATEWAY_GEMINI_SEGMENT" must be ${expected} (got "x y").`,
      source: "env",
    });
    expect(refusal({}, { flags: { messagesSegment: "ui" } }).message).toBe(`Invalid configuration in the command line: "--messages-segment" must be ${expected} (got "ui").`);
  });
});

describe("messages kept from the hand-written validators", () => {
  it("names the source, the field, what is expected and what was given", () => {
    expect(fileProblem({ port: "eighty" })).toBe('"port" must be an integer from 0 to 65535 (got "eighty").');
    // Issue 47 item 20: a quoted number is a string in JSON, refused as "eighty" is; variables and flags are text.
    expect(fileProblem({ port: "8484" })).toBe('"port" must be an integer from 0 to 65535 (a JSON number, without quotes) (got "8484").');
    expect(fileProblem({ retries: "2" })).toBe('"retries" must be an integer from 0 to 10 (a JSON number, without quotes) (got "2").');
    expect(load({}, { env: { GATEWAY_PORT: "8484" } }).port).toBe(8484);
    expect(load({}, { flags: { port: "8485" } }).port).toBe(8485);
    expect(refusal({}, { flags: { port: "eighty" } })).toEqual({
      message: 'Invalid configuration in the command line: "--port" must be an integer from 0 to 65535 (got "eighty").',
      source: "flag",
    });
    expect(refusal({}, { env: { GATEWAY_PORT: "eighty" } })).toEqual({
      message: 'Invalid configuration in GATEWAY_PORT: "GATEWAY_PORT" must be an integer from 0 to 65535 (got "eighty").',
      source: "env",
    });
    expect(refusal({}, { flags: { port: "99999" } }).message).toContain('(got "99999")');
    // Issue 47 item 20: a URL without its scheme gets a did-you-mean, http:// for a loopback host, https:// else.
    expect(refusal({}, { flags: { upstream: "127.0.0.1:11434" } }).message).toContain('(did you mean "http://127.0.0.1:11434"?) (got "127.0.0.1:11434")');
    expect(fileProblem({ upstreams: { team: { url: "litellm.example.com/base" } } })).toContain('(did you mean "https://litellm.example.com/base"?)');
    expect(fileProblem({ upstrem: "echo" })).toBe('"upstrem" must be absent: it is not a known field (did you mean "upstream"?) (got "echo").');
    expect(fileProblem({ models: { "gpt-4o": 4 } })).toBe('"models["gpt-4o"]" must be a non-empty catalog model id (no *) (got 4).');
    expect(fileProblem({ models: { "": "x" } })).toBe('"models" must be an object whose keys are non-empty model ids (got {"":"x"}).');
    expect(fileProblem([1])).toBe('"(root)" must be a JSON object (got [1]).');
    expect(fileProblem({ cors: ["http://a.example", "nope"] })).toBe('"cors" must be an origin such as http://localhost:3000 (got "nope").');
    expect(fileProblem({ timeouts: 5 })).toBe('"timeouts" must be an object with connectMs, firstByteMs and idleMs (got 5).');
    expect(fileProblem({ capture: "some" })).toBe('"capture" must be one of "off", "errors", "all" (got "some").');
  });

  it("treats Object.prototype names as unknown fields and $schema as a known one", () => {
    expect(fileProblem('{"__proto__": {"port": 1}}')).toMatch(/^"__proto__" must be absent: it is not a known field/);
    expect(fileProblem('{"constructor": 1}')).toMatch(/^"constructor" must be absent: it is not a known field/);
    expect(load({ $schema: "https://example.com/schema.json", port: 1 }).port).toBe(1);
  });

  it("reports the first problem in file order", () => {
    expect(fileProblem('{"upstrem": 1, "port": "x"}')).toMatch(/^"upstrem"/);
    expect(fileProblem('{"port": "x", "upstrem": 1}')).toMatch(/^"port"/);
    expect(fileProblem('{"upstreams": {"b": {"url": "echo", "retries": -1}, "a": {"url": "nope"}}}')).toMatch(/^"upstreams\.b\.retries"/);
  });

  it("normalises what it accepts as before", () => {
    const config = load({ upstream: " https://gateway.example.com/v/// ", cors: ["http://localhost:5173/"], port: 8080, host: " 0.0.0.0 ", models: { "a*": " b " } });
    expect(config).toMatchObject({ upstream: "https://gateway.example.com/v", cors: ["http://localhost:5173"], port: 8080, host: "0.0.0.0", models: { "a*": "b" } });
    expect(Object.getPrototypeOf(config.models)).toBe(null);
  });
});

describe("the manual's example configurations (the README's Configuration section and docs/configuration.md)", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("\n## ", readme.indexOf("## Configuration") + 1));
  const reference = readFileSync(new URL("../docs/configuration.md", import.meta.url), "utf8");
  const examples = [...(section + reference).matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]!);

  it("are all valid", () => {
    expect(examples.length).toBeGreaterThanOrEqual(10);
    for (const example of examples) expect(() => load(example), example).not.toThrow();
  });
});
