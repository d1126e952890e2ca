import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/index.js";
import type { GatewayConfig } from "../src/config/index.js";
import { staticKeySource, noKeySource } from "../src/upstream/key-source.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { cliEnv, runCli } from "./helpers/cli.js";
import { completion, startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir } from "./helpers/gateway.js";
import { GOOD_LOGIN_KEY } from "./helpers/secrets.js";
import { startStrictLiteLLM } from "./helpers/strict/litellm.js";

/**
 * SPEC 12: a team catalog's context window is what `minInputTokens` rules use for a team model. A rule may say its
 * threshold as a share of the requested model's window (`"minInputTokens": "50%"`): for `team-small`, whose catalog
 * window is 32,768 tokens, that is 16,384. A share of a window nobody knows holds for no request.
 */

const opened = closeAfterEach();
/** About 27,000 tokens of text: past half of team-small's 32,768-token window, far below a 128,000 one. */
const LONG = "lorem ipsum dolor sit amet ".repeat(4_000);

describe("a minInputTokens rule as a share of a team model's catalog window", () => {
  it("holds past that share of the catalog's window for the model the request names, and never for a model whose window is not known", async () => {
    const team = opened(await startStrictLiteLLM({ masterKey: GOOD_LOGIN_KEY }));
    const other = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "from the other upstream" }) }) }));
    const file = {
      upstreams: { local: { url: other.url, key: "none", models: ["local-*"] }, team: { kind: "litellm", url: team.url, formats: ["chat"], team: true } },
      routes: [
        { name: "too-long-for-small", when: { model: "team-small", minInputTokens: "50%" }, to: "team", model: "claude-sonnet-4-5" },
        { name: "unknown-window", when: { model: "local-*", minInputTokens: "1%" }, to: "team", model: "gpt-4o-mini" },
      ],
    };
    const gateway = opened(
      await startTestGateway(undefined, { file, keySourceFor: () => (entry: GatewayConfig["upstreams"][number]) => (entry.name === "team" ? staticKeySource(GOOD_LOGIN_KEY) : noKeySource) }),
    );
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const ask = async (model: string, content: string) => {
      const before = team.received.length;
      const reply = await client.chat.completions.create({ model, messages: [{ role: "user", content }] });
      const sent = team.received.slice(before).filter((request) => request.method === "POST");
      return { text: reply.choices[0]!.message.content, model: sent[0]?.body?.model };
    };
    expect(await ask("team-small", "hi")).toEqual({ text: "hello from the team", model: "team-small" });
    expect(await ask("team-small", LONG)).toEqual({ text: "hello from the team", model: "claude-sonnet-4-5" });
    // local-model's window is known nowhere: even 1% of it is no threshold, and the rule never holds.
    expect(await ask("local-model", LONG)).toEqual({ text: "from the other upstream", model: undefined });
    expect(gateway.records.map((record) => record.rule)).toEqual([undefined, "too-long-for-small", undefined]);
  });

  it("gateway routes explains it with the kept catalog's window", async () => {
    const team = opened(await startStrictLiteLLM({ masterKey: GOOD_LOGIN_KEY }));
    const file = {
      upstreams: { team: { kind: "litellm", url: team.url, formats: ["chat"], team: true, key: "env:TEAM_KEY" } },
      routes: [{ name: "too-long-for-small", when: { model: "team-small", minInputTokens: "50%" }, to: "team", model: "claude-sonnet-4-5" }],
    };
    const dir = tempConfigDir(file);
    const env = cliEnv({ GATEWAY_CONFIG_DIR: dir, GATEWAY_STATE_DIR: `${dir}/state`, TEAM_KEY: GOOD_LOGIN_KEY });
    expect((await runCli(["catalog", "--refresh"], env)).code).toBe(0);
    const explained = await runCli(["routes", "-", "--path", "/v1/chat/completions"], env, JSON.stringify({ model: "team-small", messages: [{ role: "user", content: LONG }] }));
    expect(explained.code, explained.stderr).toBe(0);
    expect(explained.stdout).toMatch(/✔ minInputTokens 50%: about [\d,]+ input tokens, 50% of "team-small"'s 32,768-token window is 16,384\n/);
    expect(explained.stdout).toContain("Sent to: team, model claude-sonnet-4-5 (asked for team-small), by rule too-long-for-small");
  });

  it("the config takes a count or a whole percentage from 1% to 100%, and refuses anything else naming both", () => {
    const load = (minInputTokens: unknown) => () =>
      loadConfig({ env: { GATEWAY_CONFIG_DIR: tempConfigDir({ upstreams: { a: { url: "http://127.0.0.1:9", key: "none" } }, routes: [{ when: { minInputTokens }, to: "a" }] }) } });
    expect(load("80%")().routes[0]!.when.minInputTokens).toBe("80%");
    expect(load(150_000)().routes[0]!.when.minInputTokens).toBe(150_000);
    for (const bad of ["0%", "101%", "80", "12.5%", 0]) {
      expect(load(bad)).toThrow(`an integer of at least 1, or a share of the model's context window from "1%" to "100%"`);
    }
  });
});
