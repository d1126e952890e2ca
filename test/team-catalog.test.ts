import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catalogModels, teamBudget } from "../src/team/catalog.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { startFakeUpstream, completion } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir } from "./helpers/gateway.js";
import { GOOD_LOGIN_KEY } from "./helpers/secrets.js";
import { LITELLM_KEY_INFO, LITELLM_MODEL_INFO, startStrictLiteLLM } from "./helpers/strict/litellm.js";
import { staticKeySource } from "../src/upstream/key-source.js";

/**
 * SPEC 12, Team upstream, against the strict LiteLLM: the catalog (`/v1/models` + `/model/info`) is read at start
 * and kept in the state directory, its models are routable to the team upstream by their exact ids, its windows are
 * the models' windows, and a team gateway that cannot be reached leaves the kept catalog in use.
 */

const opened = closeAfterEach();

/** A gateway whose default is another upstream, with the team LiteLLM second: only its catalog routes a model to it. */
async function gatewayWithTeam(teamUrl: string, configDir = tempConfigDir(), onCatalogFailure?: (name: string, failure: string, kept: boolean) => void) {
  const other = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "from the other upstream" }) }) }));
  const file = { upstreams: { local: { url: other.url, key: "none" }, team: { kind: "litellm", url: teamUrl, formats: ["chat"], team: true } } };
  const { writeFileSync } = await import("node:fs");
  writeFileSync(join(configDir, "config.json"), JSON.stringify(file));
  const { loadConfig } = await import("../src/config/index.js");
  const { startGateway } = await import("../src/server/start-gateway.js");
  const { testSeal } = await import("./helpers/translate.js");
  const { noKeySource } = await import("../src/upstream/key-source.js");
  const config = loadConfig({ env: { GATEWAY_CONFIG_DIR: configDir, GATEWAY_STATE_DIR: join(configDir, "state") }, flags: { port: 0 } });
  const records: { upstream?: string | undefined }[] = [];
  const gateway = opened(
    await startGateway({
      config,
      keySourceFor: (entry) => (entry.name === "team" ? staticKeySource(GOOD_LOGIN_KEY) : noKeySource),
      localKey: LOCAL_KEY,
      seal: testSeal,
      version: "0.0.0-test",
      onRequest: (record) => records.push(record),
      onCatalogFailure,
    }),
  );
  return { gateway, other, records, stateDir: config.stateDir };
}

describe("a team upstream's catalog", () => {
  it("is read at start, kept in the state directory (without the key), and routes each of its models to the team by exact id", async () => {
    const team = opened(await startStrictLiteLLM({ masterKey: GOOD_LOGIN_KEY, virtualKeys: { [GOOD_LOGIN_KEY]: LITELLM_KEY_INFO } }));
    const { gateway, records, stateDir } = await gatewayWithTeam(team.url);
    expect(team.received.map((request) => `${request.method} ${request.path}`)).toEqual(["GET /v1/models", "GET /model/info", "GET /key/info"]);
    const kept = readFileSync(join(stateDir, "team-catalogs.json"), "utf8");
    expect(kept).not.toContain(GOOD_LOGIN_KEY);
    expect(JSON.parse(kept).team.models.find((model: { id: string }) => model.id === "team-small")).toEqual({
      id: "team-small",
      source: "model_info",
      contextWindow: 32768,
      maxOutputTokens: 4096,
      inputUsdPerToken: 2e-6,
      outputUsdPerToken: 8e-6,
      supports: ["reasoning", "function_calling"],
    });
    expect(JSON.parse(kept).team.budget).toMatchObject({ spentUsd: 12.3, limitUsd: 50, resetsAt: "2027-01-01T00:00:00Z" });
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: "team-small", messages: [{ role: "user", content: "hi" }] });
    expect(reply.choices[0]!.message.content).toBe("hello from the team");
    const elsewhere = await client.chat.completions.create({ model: "not-in-the-catalog", messages: [{ role: "user", content: "hi" }] });
    expect(elsewhere.choices[0]!.message.content).toBe("from the other upstream");
    expect(records.map((record) => record.upstream)).toEqual(["team", "local"]);
  });

  it("its context window caps a translated request's output to what the window leaves", async () => {
    const team = opened(await startStrictLiteLLM({ masterKey: GOOD_LOGIN_KEY }));
    const { gateway } = await gatewayWithTeam(team.url);
    const client = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    const stream = await client.messages.create({ model: "team-small", max_tokens: 100_000, stream: true, messages: [{ role: "user", content: "hi" }] });
    for await (const event of stream) expect(event.type).not.toBe("error");
    const sent = team.last().body!;
    expect(team.last().path).toBe("/v1/chat/completions");
    expect(sent.max_tokens).toBeLessThan(32768);
  });

  it("a team gateway that cannot be reached at start leaves the kept catalog in use, and says so", async () => {
    const team = opened(await startStrictLiteLLM({ masterKey: GOOD_LOGIN_KEY }));
    const configDir = tempConfigDir();
    const first = await gatewayWithTeam(team.url, configDir);
    await first.gateway.close(0);
    await team.close();
    const failures: [string, boolean][] = [];
    const { gateway, records } = await gatewayWithTeam(team.url, configDir, (name, _failure, kept) => failures.push([name, kept]));
    expect(failures).toEqual([["team", true]]);
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    await expect(client.chat.completions.create({ model: "team-small", messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({ status: 502 });
    expect(records.at(-1)!.upstream).toBe("team");
  });

  it("a refused team key is said as refused at start, never printed, and nothing is kept", async () => {
    const team = opened(await startStrictLiteLLM({ masterKey: "sk-the-teams-master-key" }));
    const failures: string[] = [];
    const { stateDir } = await gatewayWithTeam(team.url, tempConfigDir(), (_name, failure) => failures.push(failure));
    expect(failures).toEqual(["The upstream team refused the key: it answered 400: No connected db."]);
    expect(existsSync(join(stateDir, "team-catalogs.json"))).toBe(false);
  });
});

describe("the team budget after a request", () => {
  it("is read again after a request reached the team gateway, at most once a minute, and kept", async () => {
    const team = opened(await startStrictLiteLLM({ masterKey: GOOD_LOGIN_KEY, virtualKeys: { [GOOD_LOGIN_KEY]: LITELLM_KEY_INFO } }));
    const { loadConfig } = await import("../src/config/index.js");
    const { createUpstream } = await import("../src/upstream/upstream.js");
    const { createDispatcher } = await import("../src/upstream/create-dispatcher.js");
    const { teamBudgetRefresh } = await import("../src/team/budget-refresh.js");
    const { readStoredCatalogs } = await import("../src/team/catalog-store.js");
    const dir = tempConfigDir({ upstreams: { team: { kind: "litellm", url: team.url, team: true } } });
    const config = loadConfig({ env: { GATEWAY_CONFIG_DIR: dir, GATEWAY_STATE_DIR: join(dir, "state") }, flags: {} });
    const base = new URL(team.url);
    const upstream = opened(createUpstream({ config: config.upstreams[0]!, base, label: base.origin, keySource: staticKeySource(GOOD_LOGIN_KEY), dispatcher: () => createDispatcher(base, config.timeouts) }));
    const readAt = Date.parse("2026-12-07T10:00:00Z");
    upstream.useCatalog({ upstream: "team", readAt: new Date(readAt).toISOString(), models: [], budget: { spentUsd: 1, limitUsd: 50, readAt: new Date(readAt).toISOString() } });
    let now = readAt + 30_000;
    const sink = teamBudgetRefresh([upstream], config.stateDir, () => now);
    const reached = { upstream: "team", status: 200 } as Parameters<typeof sink>[0];
    sink(reached);
    expect(team.received).toHaveLength(0);
    now = readAt + 61_000;
    sink(reached);
    sink(reached);
    await expect.poll(() => readStoredCatalogs(config.stateDir).team?.budget?.spentUsd).toBe(12.3);
    expect(team.received.map((request) => request.path)).toEqual(["/key/info"]);
    expect(upstream.catalog()!.budget).toMatchObject({ spentUsd: 12.3, limitUsd: 50 });
  });
});

describe("reading a catalog (pure)", () => {
  it("every listed id, described where /model/info describes it; a model info without a list entry is not a model", () => {
    const list = JSON.stringify({ data: [{ id: "gpt-4o-mini" }, { id: "only-listed" }] });
    const models = catalogModels(list, JSON.stringify({ data: LITELLM_MODEL_INFO.data }));
    expect(models.map((model) => [model.id, model.source, model.contextWindow])).toEqual([
      ["gpt-4o-mini", "model_info", 128000],
      ["only-listed", "models", undefined],
    ]);
  });

  it("a catalog model without a stated cost is priced at the catalog's prices, ahead of the bundled table (stats, budgets)", async () => {
    const { storeCatalog } = await import("../src/team/catalog-store.js");
    const { loadPricer } = await import("../src/pricing/pricer.js");
    const stateDir = join(tempConfigDir(), "state");
    storeCatalog(stateDir, { upstream: "team", readAt: "2026-12-07T00:00:00Z", models: catalogModels(JSON.stringify({ data: [{ id: "gpt-4o-mini" }, { id: "team-small" }] }), JSON.stringify({ data: LITELLM_MODEL_INFO.data })) });
    const upstreams = [{ name: "team", team: true, url: "http://127.0.0.1:4000" }] as unknown as Parameters<typeof loadPricer>[0]["upstreams"];
    const price = await loadPricer({ prices: {}, upstreams, stateDir });
    const record = { time: "2026-12-07T01:00:00Z", family: "chat", format: "chat", upstreamFormat: "chat", upstream: "team", model: "team-small", inputTokens: 1_000_000, outputTokens: 1_000_000 } as Parameters<typeof price>[0];
    expect(price(record)).toBe(10);
    // Elsewhere the same id is the table's (or unknown): the catalog prices only what its team upstream served.
    expect(price({ ...record, upstream: "other" })).toBeNull();
    expect(await loadPricer({ prices: { "team-small": { input: 1, output: 1 } }, upstreams, stateDir }).then((own) => own(record))).toBe(2);
  });

  it("the budget of /key/info, never the key it echoes", () => {
    const budget = teamBudget(JSON.stringify({ key: GOOD_LOGIN_KEY, info: { ...LITELLM_KEY_INFO, token: "hashed" } }), "2026-12-07T00:00:00.000Z");
    expect(budget).toEqual({ spentUsd: 12.3, limitUsd: 50, resetsAt: "2027-01-01T00:00:00Z", readAt: "2026-12-07T00:00:00.000Z" });
  });
});
