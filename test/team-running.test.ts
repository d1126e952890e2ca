import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { detach, useConfigurations } from "./helpers/detached.js";
import { startFakeUpstream, completion } from "./helpers/fake-upstream.js";
import { LOCAL_KEY } from "./helpers/gateway.js";
import { rawRequest } from "./helpers/http.js";
import { BAD_LOGIN_KEY, GOOD_LOGIN_KEY } from "./helpers/secrets.js";
import { LITELLM_KEY_INFO, LITELLM_MODEL_INFO, startStrictLiteLLM, type StrictLiteLLMOptions } from "./helpers/strict/litellm.js";

/**
 * SPEC 12, Team upstream, with a gateway running in the background (issue 51's gaps): `gateway catalog --refresh`
 * makes the running gateway read the team catalog again and route by it at once, no restart; and a team key the
 * team gateway refuses (401, or LiteLLM's 400 `no_db_connection` without a database) is said by `gateway status`,
 * naming the upstream, never printing the key.
 */

const opened = closeAfterEach();
const configurations = useConfigurations("team-running-");

/** A configuration whose default is another server, with the team LiteLLM beside it (its key from $TEAM_KEY). */
async function configuration(teamUrl: string, teamKey: string) {
  const other = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "from the other upstream" }) }) }));
  const file = { upstreams: { local: { url: other.url, key: "none" }, team: { kind: "litellm", url: teamUrl, formats: ["chat"], team: true, key: "env:TEAM_KEY" } } };
  return configurations.configuration({ GATEWAY_LOCAL_KEY: LOCAL_KEY, TEAM_KEY: teamKey }, file);
}

const NEW_MODEL = {
  model_name: "team-new",
  litellm_params: { model: "openai/gpt-4o-mini" },
  model_info: { max_input_tokens: 65_536, max_output_tokens: 8192, input_cost_per_token: 1e-6, output_cost_per_token: 4e-6, supports_function_calling: true },
};

describe("gateway catalog --refresh with a gateway running", () => {
  it("the running gateway reads the catalog again: a model the team added is routable and in Codex's list with its window at once", async () => {
    const models = [...LITELLM_MODEL_INFO.data];
    const team = opened(await startStrictLiteLLM({ masterKey: "sk-team-master-never-sent", virtualKeys: { [GOOD_LOGIN_KEY]: LITELLM_KEY_INFO }, models }));
    const env = await configuration(team.url, GOOD_LOGIN_KEY);
    const { port } = await detach(env);
    const url = `http://127.0.0.1:${port}`;
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const ask = async () => (await client.chat.completions.create({ model: "team-new", messages: [{ role: "user", content: "hi" }] })).choices[0]!.message.content;
    const codexList = async () => {
      const res = await rawRequest(url, { path: "/v1/models?client_version=0.171.0", headers: { authorization: `Bearer ${LOCAL_KEY}` } });
      expect(res.status).toBe(200);
      return (JSON.parse(res.body) as { models: { slug: string; context_window?: number }[] }).models.find((model) => model.slug === "team-new");
    };
    // Not in the catalog read at start: the default upstream answers it, and Codex's list does not have it.
    expect(await ask()).toBe("from the other upstream");
    expect(await codexList()).toBeUndefined();

    models.push(NEW_MODEL as (typeof models)[number]);
    const refreshed = await runCli(["catalog", "--refresh"], env);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.stderr).toContain("The running gateway read the catalogs again and route by them now.");
    expect(refreshed.stdout.split("\n").find((line) => line.startsWith("team-new "))!.split(/\s{2,}/)).toEqual(["team-new", "team", "/model/info", "65,536", "$1.00", "$4.00", "function_calling"]);

    const before = team.received.length;
    expect(await ask()).toBe("hello from the team");
    expect(team.received.slice(before).map((request) => `${request.method} ${request.path} ${request.body?.model}`)).toEqual(["POST /v1/chat/completions team-new"]);
    expect(await codexList()).toMatchObject({ slug: "team-new", context_window: 65_536 });
    // The gateway read it itself: the kept catalog has it too, for the next start.
    expect((JSON.parse((await runCli(["catalog", "--json"], env)).stdout) as { team: { models: { id: string }[] } }).team.models.map((model) => model.id)).toContain("team-new");
    expect(refreshed.stdout + refreshed.stderr).not.toContain(GOOD_LOGIN_KEY);
  });

  it("the refresh endpoint takes the local key: without it 401, and nothing is read", async () => {
    const team = opened(await startStrictLiteLLM({ masterKey: GOOD_LOGIN_KEY }));
    const env = await configuration(team.url, GOOD_LOGIN_KEY);
    const { port } = await detach(env);
    const before = team.received.length;
    const res = await rawRequest(`http://127.0.0.1:${port}`, { method: "POST", path: "/ui/api/team/refresh" });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).error.message).toBe("The dashboard's data needs the local key in an Authorization: Bearer header. Open the page with `gateway ui`.");
    expect(team.received.length).toBe(before);
  });
});

describe("gateway status with a team key the team gateway refuses", () => {
  const cases: [string, StrictLiteLLMOptions, number][] = [
    ["401 (a database that does not know the key)", { masterKey: "sk-team-master-never-sent", virtualKeys: { [GOOD_LOGIN_KEY]: LITELLM_KEY_INFO } }, 401],
    ["400 no_db_connection (no database)", { masterKey: "sk-team-master-never-sent" }, 400],
  ];
  for (const [what, options, status] of cases) {
    it(`says the key was refused, naming the upstream, never the key: ${what}`, async () => {
      const team = opened(await startStrictLiteLLM(options));
      const env = await configuration(team.url, BAD_LOGIN_KEY);
      await detach(env);
      const shown = await runCli(["status"], env);
      expect(shown.code, shown.stderr).toBe(0);
      const output = shown.stdout + shown.stderr;
      expect(output).toMatch(
        new RegExp(`The team gateway team refused its key \\(HTTP ${status}, at \\S+\\): store the right one with \`gateway login team\`, then \`gateway catalog --refresh\`\\.`),
      );
      expect(output).toContain("Team:      team: no catalog read yet");
      const json = JSON.parse((await runCli(["status", "--json"], env)).stdout) as { upstreams: { name: string; team?: { keyRefused: unknown } }[] };
      expect(json.upstreams.find((upstream) => upstream.name === "team")!.team!.keyRefused).toEqual({ at: expect.any(String), status });
      expect(output).not.toContain(BAD_LOGIN_KEY);

      // Once the team gateway accepts a key (read with no gateway running, with another key), status no longer says it was refused.
      expect((await runCli(["stop"], env)).code).toBe(0);
      const fixed = { ...env, TEAM_KEY: "sk-team-master-never-sent" };
      expect((await runCli(["catalog", "--refresh"], fixed)).code).toBe(0);
      const after = await runCli(["status"], fixed);
      expect(after.stdout + after.stderr).not.toContain("refused its key");
      expect(after.stdout + after.stderr).toMatch(/Team: {6}team: catalog of 3 models read/);
    });
  }
});
