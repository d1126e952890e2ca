import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cliEnv, spawnCli, waitForOutput } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { completion, startFakeUpstream } from "./helpers/fake-upstream.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";
import { sourcesOf } from "./helpers/loaded-sources.js";

/**
 * Issue 52: each format's translators and its echo replies load on the first request that needs them, once. Checked
 * on a real `gateway start` child whose every loaded module is written to a file (`helpers/module-log.mjs`); a
 * module of dist/ is known by the files of src/ its source map names.
 */

const MODULE_LOG = fileURLToPath(new URL("./helpers/module-log.mjs", import.meta.url));
const KEY = "gw-format-loading-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
const LAZY = /^src\/formats\/[^/]+\/(translators|chat-client|chat-upstream|echo)\.ts$/;
const opened = closeAfterEach();

/** `gateway start` of `config`, its module log read at any time: the translator and echo files it loaded so far. */
async function startLogged(config: Record<string, unknown> | undefined) {
  const log = join(mkdtempSync(join(tmpdir(), "gateway-modules-")), "modules.txt");
  writeFileSync(log, "");
  const child = spawnCli(["start", "--port", "0", "--quiet", "--no-request-log"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(config), GATEWAY_LOCAL_KEY: KEY, GATEWAY_TEST_MODULE_LOG: log }), ["--import", MODULE_LOG]);
  opened({
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  });
  const [, url] = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  // The log has a line each time a module is resolved; Node loads each module once.
  const lazyLoaded = () => [...new Set(readFileSync(log, "utf8").split("\n").flatMap(sourcesOf))].filter((source) => LAZY.test(source)).sort();
  return { url: url!, lazyLoaded };
}

const chat = (url: string) => rawRequest(url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(KEY), body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }) });
const messages = (url: string) => rawRequest(url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(KEY), body: JSON.stringify({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }) });

describe("what a format loads", () => {
  it("a request passed through loads no translator; the first translated one loads its two formats' translators, and the next loads nothing more", async () => {
    const upstream = opened(await startFakeUpstream({ script: () => ({ json: completion({ role: "assistant", content: "hello" }) }) }));
    const gateway = await startLogged({ upstream: "chat", upstreams: { chat: { url: upstream.url, formats: ["chat"], key: "none" } } });
    expect((await chat(gateway.url)).status).toBe(200);
    expect(gateway.lazyLoaded()).toEqual([]);
    const first = await messages(gateway.url);
    expect([first.status, JSON.parse(first.body).content]).toEqual([200, [{ type: "text", text: "hello" }]]);
    const translators = ["src/formats/chat/chat-client.ts", "src/formats/chat/chat-upstream.ts", "src/formats/messages/translators.ts"];
    expect(gateway.lazyLoaded()).toEqual(translators);
    expect((await messages(gateway.url)).status).toBe(200);
    expect(gateway.lazyLoaded()).toEqual(translators);
  });

  it("the echo upstream loads a format's echo replies on its first model call in that format, and none to list models", async () => {
    const gateway = await startLogged(undefined);
    const models = await rawRequest(gateway.url, { method: "GET", path: "/v1/models", headers: chatHeaders(KEY) });
    expect([models.status, JSON.parse(models.body).data.map((model: { id: string }) => model.id)]).toEqual([200, ["echo-1", "echo-mini"]]);
    expect(gateway.lazyLoaded()).toEqual([]);
    expect((await chat(gateway.url)).status).toBe(200);
    expect((await chat(gateway.url)).status).toBe(200);
    expect(gateway.lazyLoaded()).toEqual(["src/formats/chat/echo.ts"]);
  });
});
