import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir } from "./helpers/gateway.js";
import { chatHeaders, rawRequest } from "./helpers/http.js";
import { keySources } from "../src/cli/upstream-keys.js";
import { memoryKeyStore } from "./helpers/key-store.js";
import { anthropicLike } from "./helpers/anthropic-like.js";
import { startFakeUpstream } from "./helpers/fake-upstream.js";

/**
 * Issue 37, item 11: an upstream that serves only messages is asked for its model list in Anthropic's shape, and
 * Anthropic refuses any request without `anthropic-version`. Every request the gateway makes to it, whoever asked and
 * in whichever shape, carries one; so its models are in every union and `login`/`doctor` can check its key.
 */

const opened = closeAfterEach();
const CLAUDE_KEY = "sk-ant-test-0123456789abcdef";

async function anthropicUpstream() {
  return opened(await startFakeUpstream({ script: anthropicLike({ models: ["claude-sonnet-4-5", "claude-haiku-4-5"], key: CLAUDE_KEY }) }));
}

async function chatUpstream() {
  return opened(await startFakeUpstream({ script: () => ({ json: { object: "list", data: [{ id: "gpt-main", object: "model", created: 1700000000, owned_by: "main" }] } }) }));
}

describe("model lists of an upstream that serves only messages (item 11)", () => {
  it("lists its models in the chat-shaped and Gemini-shaped unions, asking it with anthropic-version", async () => {
    const [main, claude] = [await chatUpstream(), await anthropicUpstream()];
    const gateway = opened(
      await startTestGateway(undefined, {
        file: { upstream: "main", upstreams: { main: { url: main.url, formats: ["chat"], key: "none" }, claude: { url: claude.url, formats: ["messages"], messagesSegment: "", key: "env:CLAUDE_KEY" } } },
        env: { CLAUDE_KEY },
        keySourceFor: (config) => keySources({ config, env: { CLAUDE_KEY }, store: memoryKeyStore() }),
      }),
    );
    const chat = await rawRequest(gateway.url, { path: "/v1/models", headers: chatHeaders(LOCAL_KEY) });
    expect(chat.status).toBe(200);
    expect(chat.headers["x-gateway-partial"]).toBeUndefined();
    expect(chat.headers["x-gateway-upstream"]).toBe("main,claude");
    expect(JSON.parse(chat.body).data.map((m: { id: string }) => m.id)).toEqual(["gpt-main", "claude-sonnet-4-5", "claude-haiku-4-5"]);
    expect(claude.last().path).toBe("/v1/models");
    expect(claude.last().headers["anthropic-version"]).toBe("2023-06-01");
    const gemini = await rawRequest(gateway.url, { path: "/v1beta/models", headers: { "x-goog-api-key": LOCAL_KEY } });
    expect(gemini.status).toBe(200);
    expect(gemini.headers["x-gateway-partial"]).toBeUndefined();
    expect(JSON.parse(gemini.body).models.map((m: { name: string }) => m.name)).toEqual(["models/gpt-main", "models/claude-sonnet-4-5", "models/claude-haiku-4-5"]);
  });

  it("answers the chat-shaped list of a gateway whose only upstream serves only messages", async () => {
    const claude = opened(await startFakeUpstream({ script: anthropicLike({ models: ["claude-opus-4-1"] }) }));
    const gateway = opened(await startTestGateway(undefined, { file: { upstream: "claude", upstreams: { claude: { url: claude.url, formats: ["messages"], messagesSegment: "", key: "none" } } } }));
    const res = await rawRequest(gateway.url, { path: "/v1/models", headers: chatHeaders(LOCAL_KEY) });
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body).data.map((m: { id: string }) => m.id)).toEqual(["claude-opus-4-1"]);
  });

  it("gateway doctor and gateway models reach it: the key is accepted and its models are listed", async () => {
    const claude = await anthropicUpstream();
    const config = { upstream: "claude", upstreams: { claude: { url: claude.url, formats: ["messages"], messagesSegment: "", key: "env:CLAUDE_KEY" } } };
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(config), CLAUDE_KEY, GATEWAY_PORT: "1" });
    const doctor = await runCli(["doctor"], env);
    expect(doctor.stdout + doctor.stderr).toContain("✔ Upstream accepts the key");
    expect(claude.received.every((req) => req.headers["anthropic-version"] === "2023-06-01")).toBe(true);
    const models = await runCli(["models"], env);
    expect(models.code, models.stderr).toBe(0);
    expect(models.stdout).toMatch(/^claude-sonnet-4-5\s/m);
  });
});
