import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startPlayingUpstream } from "./helpers/agent-upstream.js";
import { cliEnv, runCli } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";

/**
 * `gateway routes` (SPEC 11, Routes): the rules in order, a dry run that says which rule wins and why, and that the dry
 * run goes where the server sends the same request (one router, one reading of the request).
 */

const opened = closeAfterEach();
const CLAUDE_UA = "claude-cli/2.1.197 (external, cli)";
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function fileWith(urls: { local: string; vision: string }) {
  return {
    upstream: "local",
    upstreams: { local: { url: urls.local, key: "none" }, vision: { url: urls.vision, key: "none", fallback: ["local"] } },
    models: { "claude-haiku*": "qwen3-coder" },
    routes: [
      { name: "background", when: { model: "qwen3-coder", client: "claude-code" }, to: "local" },
      { name: "images", when: { image: true }, to: "vision", model: "qwen2.5-vl" },
      { name: "review", when: { tag: "review" }, to: "vision" },
      { when: { minInputTokens: 2000 }, to: "vision" },
    ],
  };
}

const haiku = { model: "claude-haiku-4-5", max_tokens: 5, system: [{ type: "text", text: "<gateway-route>review</gateway-route>Be brief" }], messages: [{ role: "user", content: "hi" }] };

describe("gateway routes", () => {
  const file = fileWith({ local: "http://127.0.0.1:9", vision: "http://127.0.0.1:9" });
  const env = () => cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(file) });

  it("lists the rules in the order they are asked: name, conditions, upstream and model sent", async () => {
    const result = await runCli(["routes"], env());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        "#  NAME        WHEN                                   TO      MODEL",
        "1  background  model qwen3-coder, client claude-code  local   as asked",
        "2  images      image true                             vision  qwen2.5-vl",
        "3  review      tag review                             vision  as asked",
        "4  route-4     minInputTokens 2000                    vision  as asked",
        "",
      ].join("\n"),
    );
    const none = await runCli(["routes"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ upstream: "echo" }) }));
    expect(none.stdout).toBe("No routes: requests go by their model (the models lists), else to default.\n");
  });

  it("a dry run says, rule by rule, which condition held and what the request showed, where it goes, and the tag it removes", async () => {
    const result = await runCli(["routes", "-", "-A", CLAUDE_UA], env(), JSON.stringify(haiku));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        `POST /v1/messages (messages), model claude-haiku-4-5, user agent "${CLAUDE_UA}"`,
        "",
        "1. background: holds",
        `     ✔ client claude-code: claude-code (user agent "${CLAUDE_UA}")`,
        "     ✔ model qwen3-coder: qwen3-coder (claude-haiku-4-5 after its alias)",
        "2. images: not asked (rule background holds)",
        "3. review: not asked (rule background holds)",
        "4. route-4: not asked (rule background holds)",
        "",
        "Sent to: local, model qwen3-coder (asked for claude-haiku-4-5), by rule background",
        "Tag: <gateway-route>review</gateway-route> opens system[0].text; removed before the request leaves",
        "",
      ].join("\n"),
    );
    // From a file, at a chat path, with a tag no rule names: every rule fails, each saying why.
    const request = join(tempConfigDir(), "request.json");
    writeFileSync(request, JSON.stringify({ model: "gpt-5", messages: [{ role: "user", content: "<gateway-route>nope</gateway-route>hi" }] }));
    const chat = await runCli(["routes", request, "--path", "/v1/chat/completions"], env());
    expect(chat.stdout).toContain("1. background: does not hold\n     ✖ client claude-code: no user agent\n     ✖ model qwen3-coder: gpt-5\n");
    expect(chat.stdout).toContain("3. review: does not hold\n     ✖ tag review: the tag \"nope\"\n");
    expect(chat.stdout).toMatch(/4\. route-4: does not hold\n {5}✖ minInputTokens 2000: about \d+ input tokens\n/);
    expect(chat.stdout).toContain("Sent to: local, model gpt-5, no rule holds: the default upstream\n");
    expect(chat.stdout).toContain("Tag: <gateway-route>nope</gateway-route> opens messages[0].content, which no rule asks for: routed as if there were none; removed before the request leaves\n");
  });

  it("says what the server would refuse, and what it cannot read", async () => {
    const refused = await runCli(["routes", "-"], env(), '{"model":5,"max_tokens":1,"messages":[]}');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('The gateway would refuse this request (400): Field "model" must be a string.');
    const path = await runCli(["routes", "-", "--path", "/v1/nothing"], env(), "{}");
    expect(path.code).toBe(2);
    expect(path.stderr).toContain("POST /v1/nothing is not a model call the gateway serves.");
    const missing = await runCli(["routes", "no-such-file.json"], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("Cannot read no-such-file.json");
  });

  it("--model lists every upstream a model id or pattern can be routed to, and how", async () => {
    const result = await runCli(["routes", "--model", "claude*"], env());
    expect(result.stdout).toBe(["UPSTREAM  HOW", "local     rule background", "vision    rule images", ""].join("\n"));
  });
});

describe("the dry run and the server agree", () => {
  it("each request goes where the dry run said: rule, upstream and model sent", async () => {
    const upstream = () => startPlayingUpstream(() => ({ move: { kind: "text", text: "ok" } })).then(opened);
    const [local, vision] = [await upstream(), await upstream()];
    const file = fileWith({ local: local.url, vision: vision.url });
    const gateway = opened(await startTestGateway(undefined, { file }));
    const cases: { path: string; agent?: string; body: Record<string, unknown> }[] = [
      { path: "/v1/messages", agent: CLAUDE_UA, body: haiku },
      { path: "/v1/messages", body: haiku },
      { path: "/v1/messages", body: { model: "claude-sonnet-4-5", max_tokens: 5, messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: png } }] }] } },
      { path: "/v1/chat/completions", body: { model: "gpt-5", messages: [{ role: "user", content: "word ".repeat(3000) }] } },
      { path: "/v1/chat/completions", body: { model: "gpt-5", messages: [{ role: "user", content: "<gateway-route>nope</gateway-route>hi" }] } },
    ];
    const env = cliEnv({ GATEWAY_CONFIG_DIR: gateway.configDir });
    for (const [i, { path, agent, body }] of cases.entries()) {
      const args = ["routes", "-", "--path", path, "--json", ...(agent ? ["-A", agent] : [])];
      const dry = await runCli(args, env, JSON.stringify(body));
      expect(dry.code, dry.stderr).toBe(0);
      const { route } = JSON.parse(dry.stdout) as { route: { rule?: string; upstream: string; model: string } };
      const headers = { ...(path === "/v1/messages" ? messagesHeaders(LOCAL_KEY) : chatHeaders(LOCAL_KEY)), ...(agent ? { "user-agent": agent } : {}) };
      const res = await rawRequest(gateway.url, { method: "POST", path, headers, body: JSON.stringify(body) });
      expect(res.status, res.body).toBe(200);
      await expect.poll(() => gateway.records.length).toBe(i + 1);
      const record = gateway.records[i]!;
      expect({ rule: record.rule, upstream: record.upstream, model: record.target ?? record.model }).toEqual({ rule: route.rule, upstream: route.upstream, model: route.model });
    }
    expect(gateway.records.map((record) => record.rule)).toEqual(["background", "review", "images", "route-4", undefined]);
  });
});
