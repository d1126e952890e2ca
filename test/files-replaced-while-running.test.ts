import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { cliEnv } from "./helpers/cli.js";
import { chatSse, chunk, FAKE_UPSTREAM_KEY, startFakeUpstream } from "./helpers/fake-upstream.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { readRequestLog } from "./helpers/request-records.js";

// Translators load on a gateway's first request that needs them (issue 52), so an upgrade that replaces the package's
// files under a running gateway (`npm i -g`: new chunk names, the old ones gone) can make that load fail. A request
// that needs no translation must not fail with it: a passed-through chat stream that reports no usage only wants them
// for its record's estimate, which then falls back to the body's size over 4.

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const opened = closeAfterEach();
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** The built package copied to a folder of its own, as an install is, its packages linked. */
function installedCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), "gateway-install-"));
  for (const part of ["bin", "dist", "package.json"]) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  return dir;
}

describe("a running gateway whose translator files were replaced", () => {
  it("still passes a chat stream through, its input estimated from the body's size", async () => {
    // Asked without `stream_options.include_usage`, a chat stream carries no usage (OpenAI, vLLM).
    const upstream = opened(await startFakeUpstream({ script: () => ({ headers: { "content-type": "text/event-stream" }, chunks: [chatSse([chunk({ role: "assistant", content: "still here" }), chunk({}, "stop")])] }) }));
    const install = installedCopy();
    const state = mkdtempSync(join(tmpdir(), "gateway-state-"));
    const child = spawn(process.execPath, [join(install, "bin", "gateway.js"), "start", "--port", "0", "--upstream", upstream.url], {
      env: cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_STATE_DIR: state, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: "gw-k" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let stdout = "";
    child.stdout!.on("data", (piece: Buffer) => (stdout += piece.toString()));
    await expect.poll(() => stdout, { timeout: 10_000 }).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    const url = stdout.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)![1];
    const chunks = join(install, "dist", "chunks");
    const clientSides = readdirSync(chunks).filter((name) => /^chat-client-.*\.js$/.test(name));
    expect(clientSides.length).toBeGreaterThan(0);
    for (const name of clientSides) rmSync(join(chunks, name));

    const body = JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] });
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { authorization: "Bearer gw-k", "content-type": "application/json" }, body });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('"content":"still here"');
    }
    expect(upstream.received).toHaveLength(2);
    const records = () => readRequestLog(state);
    await expect.poll(() => records().length).toBe(2);
    for (const record of records()) expect(record).toMatchObject({ status: 200, estimated: true, outputTokens: 3 });
    expect(records().map((record) => record.inputTokens)).toEqual([Math.ceil(body.length / 4), Math.ceil(body.length / 4)]);
    rmSync(install, { recursive: true, force: true });
  });
});
