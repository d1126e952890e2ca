import { readFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { keySources } from "../src/cli/upstream-keys.js";
import { loadConfig } from "../src/config/index.js";
import { cliEnv, runCli } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir } from "./helpers/gateway.js";
import { memoryKeyStore } from "./helpers/key-store.js";
import { completion, startFakeUpstream, type Received } from "./helpers/fake-upstream.js";
import { GOOD_LOGIN_KEY } from "./helpers/secrets.js";

/**
 * Issue 37, item 22: providers write their base URL with its `/v1` (`https://api.openai.com/v1`,
 * `https://api.groq.com/openai/v1`, `https://openrouter.ai/api/v1`, Azure's `https://<resource>.openai.azure.com/openai/v1`).
 * The gateway adds `/v1` to every path itself, so it takes what precedes the `/v1` as the base, and says so; a 404
 * from the model list is a wrong URL, never a refused key.
 */

const opened = closeAfterEach();
const KEY = "sk-groq-test-0123456789abcdef";

/** A provider that serves the OpenAI API under `prefix` (`/openai/v1/...`, as Groq and Azure do); 401 without KEY. */
async function provider(prefix: string, key = KEY) {
  return opened(
    await startFakeUpstream({ script: (req: Received) => {
      if (req.headers.authorization !== `Bearer ${key}`) return { status: 401, json: { error: { message: "Invalid API Key", type: "invalid_request_error", code: "invalid_api_key" } } };
      if (req.method === "GET" && req.path === `${prefix}/v1/models`) return { json: { object: "list", data: [{ id: "llama-3.3-70b-versatile", object: "model", created: 1733447754, owned_by: "Meta" }] } };
      if (req.method === "POST" && req.path === `${prefix}/v1/chat/completions`) return { json: completion({ content: "from the provider" }) };
      return { status: 404, json: { error: { message: `Unknown request URL: ${req.method} ${req.path}.`, type: "invalid_request_error", code: "unknown_url" } } };
    } }),
  );
}

describe("a base URL that ends in /v1 (item 22)", () => {
  it("is read as what precedes the /v1, for upstream and for an upstreams entry, and the config keeps what it was given", () => {
    const dir = tempConfigDir({ upstream: "https://api.openai.com/v1/", upstreams: { groq: { url: "https://api.groq.com/openai/v1", models: ["llama*"] }, azure: { url: "https://my-resource.openai.azure.com/openai/v1", keyHeader: "api-key" } } });
    const config = loadConfig({ env: { GATEWAY_CONFIG_DIR: dir } });
    expect(config.upstreams.map((u) => [u.name, u.url, u.urlAsGiven])).toEqual([
      ["default", "https://api.openai.com", "https://api.openai.com/v1"],
      ["groq", "https://api.groq.com/openai", "https://api.groq.com/openai/v1"],
      ["azure", "https://my-resource.openai.azure.com/openai", "https://my-resource.openai.azure.com/openai/v1"],
    ]);
    expect(config.upstream).toBe("https://api.openai.com");
    // a /v1 that is not the last segment is part of the base
    expect(loadConfig({ env: { GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_UPSTREAM: "https://proxy.example.com/v1/team" } }).upstreams[0]).toMatchObject({ url: "https://proxy.example.com/v1/team", urlAsGiven: undefined });
  });

  it("an /openai/v1 base (Groq, Azure) serves the OpenAI SDK through the gateway", async () => {
    const groq = await provider("/openai");
    const gateway = opened(await startTestGateway(undefined, { file: { upstream: "groq", upstreams: { groq: { url: `${groq.url}/openai/v1`, key: "env:GROQ_KEY" } } }, env: { GROQ_KEY: KEY }, keySourceFor: (config) => keySources({ config, env: { GROQ_KEY: KEY }, store: memoryKeyStore() }) }));
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const reply = await openai.chat.completions.create({ model: "llama-3.3-70b-versatile", messages: [{ role: "user", content: "hi" }] });
    expect(reply.choices[0]!.message.content).toBe("from the provider");
    expect(groq.last().path).toBe("/openai/v1/chat/completions");
    expect((await openai.models.list()).data.map((m) => m.id)).toEqual(["llama-3.3-70b-versatile"]);
  });

  it("doctor accepts the key of a /v1 base and says how it reads the URL; status says it too", async () => {
    const groq = await provider("/openai");
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ upstream: "groq", upstreams: { groq: { url: `${groq.url}/openai/v1`, key: "env:GROQ_KEY" } } }), GROQ_KEY: KEY, GATEWAY_PORT: "1" });
    const notice = `ℹ Upstream: ${groq.url}/openai/v1 ends in /v1, which the gateway adds to every path itself: it uses ${groq.url}/openai as the base.`;
    const doctor = await runCli(["doctor"], env);
    expect(doctor.stderr).toContain(notice);
    expect(doctor.stderr).toContain("✔ Upstream accepts the key");
    expect(doctor.stderr).not.toContain("refused");
    const status = await runCli(["status"], env);
    expect(status.stderr).toContain(`Upstream:  ${groq.url}/openai\n`);
    expect(status.stderr).toContain(notice);
  });

  it("doctor calls a 404 from the model list a wrong URL, not a refused key", async () => {
    const groq = await provider("/openai");
    // The /openai is missing: the model list is at /openai/v1/models, so /v1/models is a 404.
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ upstream: "groq", upstreams: { groq: { url: groq.url, key: "env:GROQ_KEY" } } }), GROQ_KEY: KEY, GATEWAY_PORT: "1" });
    const doctor = await runCli(["doctor"], env);
    expect(doctor.code).toBe(1);
    expect(doctor.stderr).toContain("✖ Upstream has no model list at /v1/models (HTTP 404), so the key was not checked\n    fix: Check the upstream URL in config.json: it is the base the API's /v1 paths follow (https://api.groq.com/openai for https://api.groq.com/openai/v1/chat/completions).");
    expect(doctor.stderr).not.toContain("refused the key");
  });
});

describe.skipIf(process.env.GATEWAY_TEST_KEYRING !== "1")("gateway login with a /v1 URL (item 22)", () => {
  it("checks the key at the base's /v1/models, stores it, saves the base without /v1 and says so", async () => {
    const openai = await provider("", GOOD_LOGIN_KEY);
    const dir = tempConfigDir();
    const env = cliEnv({ GATEWAY_CONFIG_DIR: dir, GATEWAY_PORT: "1", DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS });
    try {
      const login = await runCli(["login", "--upstream", `${openai.url}/v1`, "--stdin"], env, GOOD_LOGIN_KEY);
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).toContain(`ℹ Upstream: ${openai.url}/v1 ends in /v1, which the gateway adds to every path itself: it uses ${openai.url} as the base.`);
      expect(login.stderr).toContain(`✔ Key stored in the OS keychain (service "gateway", account ${openai.url}).`);
      expect(openai.last().path).toBe("/v1/models");
      expect(JSON.parse(readFileSync(join(dir, "config.json"), "utf8")).upstream).toBe(openai.url);
    } finally {
      await runCli(["logout"], env);
    }
  });

  it("a 404 from the model list says to check the URL, not to try again later", async () => {
    const groq = await provider("/openai", GOOD_LOGIN_KEY);
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_PORT: "1", DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS });
    const login = await runCli(["login", "--upstream", groq.url, "--stdin"], env, GOOD_LOGIN_KEY);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain(`✖ The upstream has no model list at /v1/models (HTTP 404), so the key could not be checked. Nothing was stored.`);
    expect(login.stderr).toContain("ℹ Check the upstream URL: it is the base the API's /v1 paths follow (https://api.groq.com/openai for https://api.groq.com/openai/v1/chat/completions). Or store the key unchecked with --no-verify.");
    expect(login.stderr).not.toContain("Try again later");
  });
});
