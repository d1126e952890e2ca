import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { GatewayConfig } from "../src/config/index.js";
import { keySources } from "../src/cli/upstream-keys.js";
import { cliEnv, runCli } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { chatHeaders, rawRequest } from "./helpers/http.js";
import { memoryKeyStore } from "./helpers/key-store.js";
import { BAD_LOGIN_KEY, GOOD_LOGIN_KEY } from "./helpers/secrets.js";
import { startStrictLiteLLM, type StrictLiteLLMOptions } from "./helpers/strict/litellm.js";

/**
 * Issue 49, LiteLLM findings 6-8, against the strict LiteLLM fake: a LiteLLM without a database answers a key that is
 * not its master key with 400 `no_db_connection` ("No connected db."), never 401. That answer is a refused key
 * everywhere: `gateway add` writes nothing and exits 1, `login` says the key was rejected (not "try again later"),
 * `chat`, `models` and `doctor` say the key was refused, and several keys rest it as they rest a 401.
 */

const opened = closeAfterEach();
const configDir = (file?: Record<string, unknown>) => {
  const dir = mkdtempSync(join(tmpdir(), "gateway-litellm-"));
  if (file !== undefined) writeFileSync(join(dir, "config.json"), JSON.stringify(file));
  return dir;
};
const env = (dir: string, extra: Record<string, string> = {}) => cliEnv({ GATEWAY_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS, ...extra });
const litellm = async (options: StrictLiteLLMOptions = { masterKey: GOOD_LOGIN_KEY }) => opened(await startStrictLiteLLM(options));

describe("a LiteLLM without a database refusing a key with 400 no_db_connection", () => {
  it("gateway add: nothing is written, exit 1, saying the key was refused", async () => {
    const team = await litellm();
    const dir = configDir();
    const added = await runCli(["add", team.url, "team", "--stdin"], env(dir), `${BAD_LOGIN_KEY}\n`);
    expect(added.code).toBe(1);
    expect(added.stderr).toContain(`${team.url} refused this key (400: No connected db.). Nothing was written.`);
    expect(added.stderr).not.toContain(BAD_LOGIN_KEY);
    expect(existsSync(join(dir, "config.json"))).toBe(false);
  });

  it("gateway login: the key is rejected and nothing stored, not 'try again later'", async () => {
    const team = await litellm();
    const dir = configDir({ upstreams: { team: { kind: "litellm", url: team.url } } });
    const login = await runCli(["login", "team", "--stdin"], env(dir), BAD_LOGIN_KEY);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain("The upstream rejected this key (400: No connected db.). Nothing was stored.");
    expect(login.stderr).not.toContain("Try again later");
  });

  it("gateway chat and models say the key was refused and how to store another; doctor says refused, not in trouble", async () => {
    const team = await litellm();
    const dir = configDir({ upstreams: { team: { kind: "litellm", url: team.url, key: "env:TEAM_KEY" } } });
    const withKey = env(dir, { TEAM_KEY: BAD_LOGIN_KEY });
    for (const args of [["chat", "-m", "gpt-4o-mini", "hi"], ["models"]]) {
      const result = await runCli(args, withKey);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain("refused the key: it answered 400: No connected db.");
      expect(result.stderr).toContain("gateway login");
      expect(result.stderr).not.toContain("check the model id");
    }
    const doctor = await runCli(["doctor"], withKey);
    expect(doctor.stdout + doctor.stderr).toContain("Upstream refused the key (HTTP 400)");
    expect(doctor.stdout + doctor.stderr).not.toContain("in trouble");
    expect(doctor.stdout + doctor.stderr).not.toContain(BAD_LOGIN_KEY);
  });

  it("several keys: the refused key rests as after a 401, and the same request goes out at once with the next", async () => {
    const options: StrictLiteLLMOptions = { masterKey: GOOD_LOGIN_KEY };
    const team = await litellm(options);
    const keys = { KEY_A: GOOD_LOGIN_KEY, KEY_B: BAD_LOGIN_KEY };
    const gateway = opened(
      await startTestGateway(undefined, {
        file: { upstreams: { team: { kind: "litellm", url: team.url, key: ["env:KEY_A", "env:KEY_B"] } } },
        env: keys,
        keySourceFor: (config: GatewayConfig) => keySources({ config, env: keys, store: memoryKeyStore() }),
      }),
    );
    const chat = () => rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }) });
    // Both keys work for a while (the team's master key was B's, then went back to A's): each has answered 2xx.
    expect((await chat()).status).toBe(200);
    options.masterKey = BAD_LOGIN_KEY;
    expect((await chat()).status).toBe(200);
    options.masterKey = GOOD_LOGIN_KEY;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await chat()).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    const sent = team.received.filter((request) => request.method === "POST").map((request) => (request.headers.authorization === `Bearer ${GOOD_LOGIN_KEY}` ? "A" : "B"));
    // The third request met B refused, rested it and went out again with A; B was not tried again while it rests.
    expect(sent).toEqual(["A", "B", "A", "B", "A", "A", "A"]);
    expect(gateway.records.slice(2).map((record) => record.key)).toEqual(["env:KEY_A", "env:KEY_A", "env:KEY_A", "env:KEY_A"]);
  });
});
