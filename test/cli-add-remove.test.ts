import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, cliEnv, recordOutput, runCli } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { generations, kindServer, serverFixture } from "./helpers/kind-servers.js";
import { startFakeUpstream } from "./helpers/fake-upstream.js";
import { GOOD_LOGIN_KEY } from "./helpers/secrets.js";
import { envPrefix, hasTmux, openTerminal } from "./helpers/terminal.js";

/**
 * `gateway add` and `gateway remove` (SPEC 11, Adding an upstream) through the built CLI, against fakes that answer
 * as each server does on its real paths (test/fixtures/kinds). The config file is compared byte for byte outside
 * the entry a command wrote or removed.
 */

const opened = closeAfterEach();
const configDir = (file?: string) => {
  const dir = mkdtempSync(join(tmpdir(), "gateway-add-"));
  if (file !== undefined) writeFileSync(join(dir, "config.json"), file);
  return dir;
};
const env = (dir: string) => cliEnv({ GATEWAY_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS });
const configText = (dir: string) => readFileSync(join(dir, "config.json"), "utf8");
const server = async (name: string, apiKey?: string) => opened(await startFakeUpstream({ script: kindServer(serverFixture(name), apiKey) }));

/** `after` is `before` with one run of text inserted (or, swapped, removed): the inserted text, else a failure. */
function insertedText(before: string, after: string): string {
  let start = 0;
  while (start < before.length && before[start] === after[start]) start++;
  const inserted = after.slice(start, after.length - (before.length - start));
  expect(after).toBe(before.slice(0, start) + inserted + before.slice(start));
  return inserted;
}

describe("gateway add <url>: the probe recognises the server by its own endpoint", () => {
  it("a newcomer's Ollama: recognised, its formats and models found, a working default entry, nothing generated", async () => {
    const ollama = await server("ollama");
    const dir = configDir();
    const added = await runCli(["add", ollama.url], env(dir));
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain(`Found Ollama at ${ollama.url} (version 0.12.3).`);
    expect(added.stderr).toContain("Formats that answer: chat, responses, messages (not gemini).");
    expect(added.stderr).toContain('The entry uses chat: Ollama\'s usual formats (list the others in its "formats" to use them).');
    expect(added.stderr).toContain("It lists 2 models: ");
    expect(added.stderr).toContain(`Added upstream "ollama" (Ollama, ${ollama.url}) to ${join(dir, "config.json")}:`);
    expect(added.stderr).toContain("It is the default upstream.");
    expect(configText(dir)).toBe(`{\n  "upstreams": {\n    "ollama": {\n      "kind": "ollama",\n      "url": "${ollama.url}",\n      "formats": ["chat"]\n    }\n  }\n}\n`);
    expect(generations(ollama.received)).toEqual([]);
    expect(ollama.received.map((request) => `${request.method} ${request.path}`).sort()).toEqual(
      [
        "GET /api/version",
        "GET /props",
        "GET /version",
        "GET /api/v0/models",
        "GET /health/liveliness",
        "POST /v1/chat/completions",
        "POST /v1/responses",
        "POST /v1/messages",
        "POST /gemini/v1beta/models/gateway-probe:generateContent",
        "GET /v1/models",
      ].sort(),
    );
    // The entry works: a chat request through the gateway reaches Ollama, with no key.
    const chat = await runCli(["chat", "-m", "qwen3-coder:30b", "--no-stream", "hi"], env(dir));
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toBe("hello from the local model\n");
    const asked = ollama.last();
    expect(asked.path).toBe("/v1/chat/completions");
    expect(asked.body).toMatchObject({ model: "qwen3-coder:30b", messages: [{ role: "user", content: "hi" }] });
    expect(asked.headers.authorization).toBeUndefined();
    // And a running gateway on that config serves the official SDKs from it: chat as it is, messages translated.
    const gateway = opened(await startTestGateway(undefined, { file: JSON.parse(configText(dir)) as Record<string, unknown> }));
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const completion = await openai.chat.completions.create({ model: "llama3.3:latest", messages: [{ role: "user", content: "hi" }] });
    expect(completion.choices[0]!.message.content).toBe("hello from the local model");
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    const message = await anthropic.messages.stream({ model: "qwen3-coder:30b", max_tokens: 64_000, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(message.content).toEqual([{ type: "text", text: "hello from the local model" }]);
    expect(ollama.last().path).toBe("/v1/chat/completions");
    expect(gateway.records.at(-1)).toMatchObject({ upstream: "ollama", translated: "messages -> chat" });
  });

  it("vLLM, added under a name to a file of the user's own, which keeps every other byte", async () => {
    const vllm = await server("vllm");
    const before = '{\n    "port": 9000,\n    "upstreams": {\n        "remote": { "url": "https://gateway.example.com" }\n    },\n    "upstream": "remote"\n}\n';
    const dir = configDir(before);
    const added = await runCli(["add", vllm.url, "gpu", "--models", "Qwen/*"], env(dir));
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain(`Found vLLM at ${vllm.url} (version 0.23.1).`);
    expect(added.stderr).toContain("Requests for Qwen/* reach it; every other model goes to the default upstream, remote.");
    const inserted = insertedText(before, configText(dir));
    expect(JSON.parse(`{${inserted.replace(/^,/, "")}}`)).toEqual({ gpu: { kind: "vllm", url: vllm.url, models: ["Qwen/*"], formats: ["chat"] } });
    expect(inserted).toBe(`,\n        "gpu": {\n            "kind": "vllm",\n            "url": "${vllm.url}",\n            "models": ["Qwen/*"],\n            "formats": ["chat"]\n        }`);
    expect(generations(vllm.received)).toEqual([]);
  });

  it("llama.cpp and LM Studio are told apart (LM Studio answers every path with 200), and each finds its formats", async () => {
    for (const [name, title, count] of [["llamacpp", "llama.cpp", 1], ["lmstudio", "LM Studio", 2]] as const) {
      const fake = await server(name);
      const dir = configDir();
      const added = await runCli(["add", fake.url], env(dir));
      expect(added.code, added.stderr).toBe(0);
      expect(added.stderr).toContain(`Found ${title} at ${fake.url}`);
      expect(added.stderr).toContain("Formats that answer: chat, responses, messages (not gemini).");
      expect(added.stderr).toContain(`It lists ${count} model${count === 1 ? "" : "s"}: `);
      expect(JSON.parse(configText(dir)).upstreams[name]).toEqual({ kind: name, url: fake.url, formats: ["chat"] });
    }
  });

  it("a vLLM started with --api-key says it wants a key, and nothing is written", async () => {
    const vllm = await server("vllm", "vllm-secret");
    const dir = configDir();
    const added = await runCli(["add", vllm.url], env(dir));
    expect(added.code).toBe(1);
    expect(added.stderr).toContain(`${vllm.url} wants a key (it answered 401).`);
    expect(existsSync(join(dir, "config.json"))).toBe(false);
  });

  it("LiteLLM: recognised by its liveliness answer, asked for a key, probed with GETs only (never its model-calling /health)", async () => {
    const litellm = await server("litellm", GOOD_LOGIN_KEY);
    const dir = configDir();
    const added = await runCli(["add", litellm.url, "team", "--stdin"], env(dir), `${GOOD_LOGIN_KEY}\n`);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain(`Found LiteLLM at ${litellm.url}.`);
    expect(added.stderr).toContain("Formats: chat, responses, messages, gemini (LiteLLM's; a probe never posts to a server that bills by token).");
    expect(added.stderr).toContain("It lists 3 models: ");
    expect(litellm.received.every((request) => request.method === "GET" && request.path !== "/health")).toBe(true);
    expect(litellm.last().headers.authorization).toBe(`Bearer ${GOOD_LOGIN_KEY}`);
    expect(JSON.parse(configText(dir))).toEqual({ upstreams: { team: { kind: "litellm", url: litellm.url } } });
    const status = await runCli(["status", "--json"], env(dir));
    expect(status.code).toBe(1);
    expect(JSON.parse(status.stdout)).toMatchObject({
      gateway: null,
      upstreams: [{ name: "team", kind: "litellm", url: litellm.url, formats: ["chat", "responses", "messages", "gemini"], default: true, key: { ok: true } }],
    });
  });

  it("a refused key writes nothing and stores nothing", async () => {
    const litellm = await server("litellm", "sk-the-right-one");
    const dir = configDir();
    const added = await runCli(["add", litellm.url, "--stdin"], env(dir), `${GOOD_LOGIN_KEY}\n`);
    expect(added.code).toBe(1);
    expect(added.stderr).toContain(`${litellm.url} refused this key (401: Authentication Error, No api key passed in.). Nothing was written.`);
    expect(existsSync(join(dir, "config.json"))).toBe(false);
  });

  it("a URL nothing answers at fails, saying what to do", async () => {
    const gone = await server("ollama");
    await gone.close();
    const added = await runCli(["add", gone.url], env(configDir()));
    expect(added.code).toBe(1);
    expect(added.stderr).toContain(`Nothing answers at ${gone.url}`);
    expect(added.stderr).toContain("--no-probe");
  });
});

describe("gateway add: the first hour's rough edges (issue 47 items 14-16, 20)", () => {
  it("refuses a server that answers every path with an HTML page: no key asked, nothing written (item 14)", async () => {
    const page = "<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head><body>It works</body></html>";
    const web = opened(await startFakeUpstream({ script: () => ({ headers: { "content-type": "text/html; charset=utf-8" }, chunks: [page] }) }));
    for (const args of [[web.url, "--stdin"], ["generic", "--url", web.url, "--stdin"], ["vllm", "--url", web.url, "--stdin"]]) {
      const dir = configDir();
      const added = await runCli(["add", ...args], env(dir), `${GOOD_LOGIN_KEY}\n`);
      expect(added.code, args.join(" ")).toBe(1);
      expect(added.stderr).toContain(`✖ ${web.url} answers with HTML pages, not an API's JSON: it is a web page, not an API. Nothing was written.`);
      expect(added.stderr).toContain("ℹ Check the URL: the API's base address (without /v1), as its documentation gives it for OpenAI-compatible clients.");
      expect(added.stderr).not.toContain("Formats that answer");
      expect(existsSync(join(dir, "config.json"))).toBe(false);
    }
  });

  it("a loopback server of no recognised kind is added with --key none: no key asked, the entry says so, requests carry none (item 15)", async () => {
    // A keyless server of its own kind: JSON answers, a chat endpoint, a model list, 404 elsewhere.
    const completion = { id: "c1", object: "chat.completion", created: 0, model: "tiny", choices: [{ index: 0, message: { role: "assistant", content: "hi there" }, finish_reason: "stop" }] };
    const local = opened(
      await startFakeUpstream({
        script: (request) => {
          if (request.method === "GET" && request.path === "/v1/models") return { json: { object: "list", data: [{ id: "tiny", object: "model" }] } };
          if (request.method === "POST" && request.path === "/v1/chat/completions") return (request.body as { model?: string }).model ? { json: completion } : { status: 400, json: { error: { message: "model is required" } } };
          return { status: 404, json: { error: { message: "Not found" } } };
        },
      }),
    );
    const dir = configDir();
    const asked = await runCli(["add", local.url], env(dir));
    expect(asked.code).not.toBe(0);
    expect(asked.stderr).toContain(`ℹ A server on this machine may need no key: then add it with --key none (gateway add ${local.url} --key none).`);
    const added = await runCli(["add", local.url, "mine", "--key", "none"], env(dir));
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).not.toContain("Key for");
    expect(JSON.parse(configText(dir)).upstreams.mine).toMatchObject({ kind: "generic", url: local.url, key: "none" });
    const chat = await runCli(["chat", "-m", "tiny", "--no-stream", "hi"], env(dir));
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toBe("hi there\n");
    expect(local.last().headers.authorization).toBeUndefined();
    const bad = await runCli(["add", local.url, "--key", "nothing"], env(dir));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('✖ --key must be none, keychain or env:<VARIABLE> (got "nothing").');
  });

  it("a second upstream gets the models its list names written, and the output says only what is true (item 16)", async () => {
    const ollama = await server("ollama");
    const vllm = await server("vllm");
    const dir = configDir();
    expect((await runCli(["add", ollama.url], env(dir))).code).toBe(0);
    const second = await runCli(["add", vllm.url, "gpu"], env(dir));
    expect(second.code, second.stderr).toBe(0);
    const { models } = JSON.parse(configText(dir)).upstreams.gpu as { models: string[] };
    expect(models.length).toBeGreaterThan(0);
    expect(second.stderr).toContain(`Requests for the ${models.length === 1 ? "model" : `${models.length} models`} it lists reach it (written as its "models"); every other model goes to the default upstream, ollama.`);
    expect(second.stderr).not.toContain('Requests reach it for the models of its "models" list');
    // A chat for one of its models reaches it.
    const chat = await runCli(["chat", "-m", models[0]!, "--no-stream", "hi"], env(dir));
    expect(chat.code, chat.stderr).toBe(0);
    expect(vllm.last().body).toMatchObject({ model: models[0] });
    // Not probed: nothing is known, so the output says what to add.
    const blind = await runCli(["add", "vllm", "--url", vllm.url, "gpu-2", "--no-probe"], env(dir));
    expect(blind.code, blind.stderr).toBe(0);
    expect(blind.stderr).toContain(`No request reaches it yet (the default upstream is ollama): add the model ids or patterns it serves to its "models" in ${join(dir, "config.json")}, e.g. "models": ["qwen/*"], or run gateway add again with --force --models <pattern...>.`);
  });

  it("a kind named with --url that the server there is not is said aloud (item 20)", async () => {
    const ollama = await server("ollama");
    const dir = configDir();
    const added = await runCli(["add", "vllm", "--url", ollama.url], env(dir));
    expect(added.stderr).toContain(`⚠ ${ollama.url} does not look like vLLM: it answers as Ollama. Adding it as vllm, as asked (\`gateway add ${ollama.url}\` adds it as what it is).`);
  });
});

describe("gateway add <kind>", () => {
  it("a provider that bills by token is sent nothing but the GET of its model list, with its key in its own header", async () => {
    const list = {
      openai: { status: 200, json: { object: "list", data: [{ id: "gpt-5", object: "model", created: 1, owned_by: "openai" }] } },
      anthropic: { status: 200, json: { data: [{ type: "model", id: "claude-opus-4-8", display_name: "Claude Opus 4.8", created_at: "2026-01-01T00:00:00Z" }], has_more: false, first_id: "claude-opus-4-8", last_id: "claude-opus-4-8" } },
    };
    for (const kind of ["openai", "anthropic"] as const) {
      const provider = opened(await startFakeUpstream({ script: (request) => (request.method === "GET" && request.path === "/v1/models" ? list[kind] : { status: 500, json: { error: { message: "a probe must not ask this" } } }) }));
      const dir = configDir();
      const added = await runCli(["add", kind, "--url", provider.url, "--stdin"], env(dir), `${GOOD_LOGIN_KEY}\n`);
      expect(added.code, added.stderr).toBe(0);
      expect(added.stderr).toContain("a probe never posts to a server that bills by token");
      expect(added.stderr).toContain("It lists 1 model: ");
      expect(provider.received.map((request) => `${request.method} ${request.path}`)).toEqual(["GET /v1/models"]);
      const headers = provider.last().headers;
      if (kind === "openai") expect(headers.authorization).toBe(`Bearer ${GOOD_LOGIN_KEY}`);
      else expect(headers).toMatchObject({ "x-api-key": GOOD_LOGIN_KEY, "anthropic-version": "2023-06-01" });
      expect(JSON.parse(configText(dir))).toEqual({ upstreams: { [kind]: { kind, url: provider.url } } });
    }
  });

  it("a kind that bills by token, without probing: the entry names the kind only, and the key goes to the keychain", async () => {
    const dir = configDir();
    const added = await runCli(["add", "deepseek", "--no-probe", "--stdin", "--models", "deepseek-*"], env(dir), `${GOOD_LOGIN_KEY}\n`);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(configText(dir))).toEqual({ upstreams: { deepseek: { kind: "deepseek", models: ["deepseek-*"] } } });
    expect(added.stderr).toContain("account https://api.deepseek.com");
    const status = JSON.parse((await runCli(["status", "--json"], env(dir))).stdout);
    expect(status.upstreams[0]).toMatchObject({ kind: "deepseek", url: "https://api.deepseek.com", formats: ["chat", "messages"], key: { ok: true } });
  });

  it("never shows the key a server echoes back in its answer", async () => {
    const provider = opened(await startFakeUpstream({ script: (request) => ({ status: 500, json: { error: { message: `upstream broke on key ${String(request.headers.authorization).slice(7)}` } } }) }));
    const dir = configDir();
    const added = await runCli(["add", "openai", "--url", provider.url, "--stdin"], env(dir), `${GOOD_LOGIN_KEY}\n`);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain("Its model list answered 500: upstream broke on key ***.");
    expect(added.stderr).not.toContain(GOOD_LOGIN_KEY);
  });

  it("refuses an existing name unless --force, and --force replaces only that entry", async () => {
    const ollama = await server("ollama");
    const before = '{"upstreams": {"ollama": {"url": "http://127.0.0.1:1"}, "other": {"url": "echo"}}}';
    const dir = configDir(before);
    const refused = await runCli(["add", "ollama", "--url", ollama.url], env(dir));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('An upstream called "ollama" is already in');
    expect(configText(dir)).toBe(before);
    const forced = await runCli(["add", "ollama", "--url", ollama.url, "--force"], env(dir));
    expect(forced.code, forced.stderr).toBe(0);
    const after = JSON.parse(configText(dir));
    expect(after.upstreams).toEqual({ ollama: { kind: "ollama", url: ollama.url, formats: ["chat"] }, other: { url: "echo" } });
    expect(configText(dir).endsWith(', "other": {"url": "echo"}}}')).toBe(true);
  });

  it("is usage (exit 2) for an unknown kind, naming the closest, and for LiteLLM without a URL", async () => {
    const typo = await runCli(["add", "olama"], env(configDir()));
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('"olama" is neither a kind of server nor a URL. Did you mean "ollama"?');
    // Issue 47 item 20: a URL written without its scheme is named with it.
    const bare = await runCli(["add", "127.0.0.1:11434"], env(configDir()));
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('✖ "127.0.0.1:11434" is neither a kind of server nor a URL. Did you mean "http://127.0.0.1:11434"?');
    const litellm = await runCli(["add", "litellm", "--no-probe"], env(configDir()));
    expect(litellm.code).toBe(2);
    expect(litellm.stderr).toContain("A litellm upstream has no usual address.");
    const http = await runCli(["add", "http://192.168.1.20:11434"], env(configDir()));
    expect(http.code).toBe(2);
    expect(http.stderr).toContain("https:// URL (plain http:// is only allowed for loopback hosts)");
  });
});

describe("gateway remove <name>", () => {
  it("refuses an upstream another entry falls back to, or that upstream names, naming where", async () => {
    const file = '{"upstream": "b", "upstreams": {"a": {"url": "echo", "fallback": ["c"]}, "b": {"url": "echo"}, "c": {"url": "echo"}}}';
    const dir = configDir(file);
    const fallback = await runCli(["remove", "c"], env(dir));
    expect(fallback.code).toBe(1);
    expect(fallback.stderr).toContain('The upstream "c" is named in upstreams.a.fallback of');
    const chosen = await runCli(["remove", "b"], env(dir));
    expect(chosen.code).toBe(1);
    expect(chosen.stderr).toContain('The upstream "b" is named in upstream of');
    const unknown = await runCli(["remove", "d"], env(dir));
    expect(unknown.code).toBe(2);
    expect(configText(dir)).toBe(file);
  });

  it("undoes an add byte for byte, and deletes the key only with --delete-key when there is no terminal", async () => {
    const before = '{\n  "port": 9000,\n  "upstreams": {\n    "remote": { "url": "https://gateway.example.com" }\n  }\n}\n';
    const dir = configDir(before);
    expect((await runCli(["add", "openai", "--no-probe", "--stdin"], env(dir), `${GOOD_LOGIN_KEY}\n`)).code).toBe(0);
    const kept = await runCli(["remove", "openai"], env(dir));
    expect(kept.code, kept.stderr).toBe(0);
    expect(configText(dir)).toBe(before);
    // Issue 47 item 20: the entry is gone, so the hint names the command that still works, and it does.
    expect(kept.stderr).toContain("Its key for https://api.openai.com stays in the OS keychain: `gateway logout --upstream https://api.openai.com` deletes it.");
    const logout = await runCli(["logout", "--upstream", "https://api.openai.com"], env(dir));
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toContain("Removed the key for https://api.openai.com from the OS keychain.");
    expect((await runCli(["add", "openai", "--no-probe", "--stdin"], env(dir), `${GOOD_LOGIN_KEY}\n`)).code).toBe(0);
    const deleted = await runCli(["remove", "openai", "--delete-key"], env(dir));
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stderr).toContain("Deleted its key for https://api.openai.com from the OS keychain.");
    expect(configText(dir)).toBe(before);
  });

  it.skipIf(!hasTmux)("asks at a terminal whether to delete the stored key, and deletes it when told yes", async () => {
    const dir = configDir();
    expect((await runCli(["add", "anthropic", "--no-probe", "--stdin"], env(dir), `${GOOD_LOGIN_KEY}\n`)).code).toBe(0);
    const terminal = openTerminal("gateway-remove", `${envPrefix(env(dir))} ${process.execPath} ${BIN} remove anthropic`);
    try {
      const asked = await terminal.waitFor(/Delete its key for https:\/\/api\.anthropic\.com from the OS keychain too\?/);
      expect(asked).toContain("Removed upstream \"anthropic\"");
      terminal.keys("y", "Enter");
      const screen = await terminal.waitFor(/EXITED \d+/);
      recordOutput(["remove anthropic (terminal)"], screen, "");
      expect(screen).toContain("Deleted its key for https://api.anthropic.com from the OS keychain.");
      expect(screen).toMatch(/EXITED 0/);
    } finally {
      terminal.close();
    }
    expect(JSON.parse(configText(dir))).toEqual({ upstreams: {} });
    // The key is gone: a new entry on the same origin has none until it is given one.
    writeFileSync(join(dir, "config.json"), '{"upstreams": {"anthropic": {"kind": "anthropic"}}}');
    const status = JSON.parse((await runCli(["status", "--json"], env(dir))).stdout);
    expect(status.upstreams[0].key.ok).toBe(false);
  });
});
