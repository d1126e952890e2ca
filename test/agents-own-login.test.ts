import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startPlayingUpstream } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import { allText, logInToClaude } from "./helpers/claude-login.js";
import { runCli } from "./helpers/cli.js";
import type { Received } from "./helpers/fake-upstream.js";
import { rawRequest } from "./helpers/http.js";
import { hasTool, reportToolRun } from "./helpers/tools.js";

/**
 * `gateway run --own-login claude` with the real Claude Code logged in to a Claude subscription (SPEC 11, Your own
 * login): a stand-in credentials file in a private HOME, shaped as Claude Code 2.1.197 reads it on Linux
 * (`~/.claude/.credentials.json`: `claudeAiOauth` with `accessToken`, `refreshToken`, `expiresAt`, `scopes`,
 * `subscriptionType`, `rateLimitTier`, from `strings` on its binary). Claude Code keeps its login and sends its OAuth
 * token as a bearer token to the gateway; the `key: "client"` upstream gets that token and nothing else, a request
 * routed by model to a `key: "none"` upstream gets no credential, and the token is in no output, log, record, capture
 * or dashboard answer.
 */

const setUp = agentRuns();
const TOKEN = "sk-ant-oat01-standin-subscription-token-0123456789abcdef";

const credentialHeaders = (request: Received) => ["authorization", "x-api-key", "x-goog-api-key"].filter((name) => request.headers[name] !== undefined);

/** What the running gateway answers at a dashboard data path, asked with the local key as the page asks. */
async function getJson(port: number, path: string, localKey: string): Promise<unknown> {
  return JSON.parse((await rawRequest(`http://127.0.0.1:${port}`, { path, headers: { authorization: `Bearer ${localKey}` } })).body);
}

describe.skipIf(!hasTool("claude"))("Claude Code with its own subscription login through gateway run --own-login", () => {
  it("keeps its login for claude-sonnet on the client upstream, while a haiku request goes to a local upstream without it", async () => {
    reportToolRun("claude", "native", "messages");
    const subscription = await startPlayingUpstream(() => ({ move: { kind: "text", text: "Answered with your subscription." } }), {
      // Anthropic's API with a subscription login: the bearer token it issued, or 401.
      refuse: (request) => (request.headers.authorization === `Bearer ${TOKEN}` ? undefined : { status: 401, json: { type: "error", error: { type: "authentication_error", message: "invalid bearer token" } } }),
    });
    const local = await startPlayingUpstream(() => ({ move: { kind: "text", text: "Answered by the local server." } }));
    const { home, env, state, run } = setUp(subscription, "messages", {}, {
      upstream: "anthropic",
      capture: "all",
      upstreams: {
        anthropic: { kind: "anthropic", url: subscription.url, messagesSegment: "anthropic", key: "client", models: ["claude-sonnet-*"] },
        local: { url: local.url, formats: ["messages"], key: "none", models: ["claude-haiku-*"] },
      },
    });
    logInToClaude(home, TOKEN);

    const sonnet = await run(["--own-login", "claude", "-p", "Say hello.", "--model", "claude-sonnet-4-5"]);
    expect(sonnet.stdout, sonnet.stderr).toContain("Answered with your subscription.");
    const haiku = await run(["--own-login", "claude", "-p", "Say hello.", "--model", "claude-haiku-4-5"]);
    expect(haiku.stdout, haiku.stderr).toContain("Answered by the local server.");

    const calls = subscription.received.filter((request) => request.method === "POST");
    expect(calls.length).toBeGreaterThan(0);
    for (const request of calls) {
      expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(request.headers["x-api-key"]).toBeUndefined();
    }
    const localCalls = local.received.filter((request) => request.method === "POST");
    expect(localCalls.length).toBeGreaterThan(0);
    for (const request of local.received) expect(credentialHeaders(request)).toEqual([]);

    // Nothing the gateway keeps or shows holds the token: outputs, its log, the request log, captures, the dashboard.
    const port = Number(env.GATEWAY_PORT);
    const localKey = readFileSync(join(env.GATEWAY_CONFIG_DIR!, "local-key"), "utf8").trim();
    const summary = await getJson(port, "/ui/api/summary", localKey);
    const records = (summary as { records: { requestId: string; upstream: string }[] }).records;
    expect(records.map((record) => record.upstream)).toEqual(expect.arrayContaining(["anthropic", "local"]));
    const details = await Promise.all(records.map((record) => getJson(port, `/ui/api/requests/${record.requestId}`, localKey)));
    const status = await runCli(["status"], env);
    const logs = await runCli(["logs", "--json"], env);
    const kept = [sonnet.stdout, sonnet.stderr, haiku.stdout, haiku.stderr, status.stdout, status.stderr, logs.stdout, allText(state), JSON.stringify(summary), JSON.stringify(details)].join("\n");
    expect(kept).toContain("claude-sonnet-4-5");
    expect(kept).not.toContain(TOKEN);
  }, 240_000);
});
