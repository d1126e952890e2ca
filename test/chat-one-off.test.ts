import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cliEnv, runCli, spawnCli, waitForOutput } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { detach, useConfigurations } from "./helpers/detached.js";
import { chatSse, chunk, completion, inWrites, startFakeUpstream } from "./helpers/fake-upstream.js";
import { tempConfigDir } from "./helpers/gateway.js";

/**
 * A one-off `gateway chat` with no gateway running (issue 52): the request goes through the gateway's request path
 * in the command's own process (how soon it exits after the reply is a figure of `bench/one-off.mjs`, not a test).
 */

const LISTEN_LOG = fileURLToPath(new URL("./helpers/listen-log.mjs", import.meta.url));
const opened = closeAfterEach();
const configurations = useConfigurations("one-off-");

/** The records `gateway logs --json` prints, without what differs between two runs of one request (id, times). */
async function records(env: NodeJS.ProcessEnv): Promise<Record<string, unknown>[]> {
  const lines = (await runCli(["logs", "--json"], env)).stdout.split("\n").filter(Boolean);
  return lines.map((line) => {
    const { requestId, time, durationMs, ttfbMs, ...rest } = JSON.parse(line) as Record<string, unknown>;
    return rest;
  });
}

describe("a one-off gateway chat", () => {
  it("writes the record a running gateway writes for the same request, and its budgets stop it as they stop the running one", async () => {
    const upstream = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "priced" }) }) }));
    // 12 input tokens at $0.10 each: $1.20 a request, so the second spends the $2 budget.
    const env = await configurations.configuration({}, { upstream: "paid", upstreams: { paid: { url: upstream.url, key: "none" } }, prices: { "paid-*": { input: 100_000, output: 0 } }, budgets: { daily: 2 } });
    const ask = () => runCli(["chat", "--no-stream", "-m", "paid-1", "hi"], env);
    expect((await ask()).stdout).toBe("priced\n");
    await detach(env, "--port", "0");
    expect((await ask()).stdout).toBe("priced\n");
    expect((await runCli(["stop"], env)).code).toBe(0);
    const [alone, running] = await records(env);
    expect(alone).toEqual(running);
    expect(alone).toMatchObject({ model: "paid-1", upstream: "paid", status: 200, userAgent: "gateway-cli" });
    // No gateway runs: the one-off reads the spend both requests left in the log, and is not sent.
    const refused = await ask();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("The gateway's own budget stopped the request (429), not the upstream: The overall daily budget ($2.00) is spent: $2.40 estimated since the day began, so the request was not sent.");
    expect(upstream.received).toHaveLength(2);
  });

  it("listens on no port", async () => {
    const upstream = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "unbound" }) }) }));
    const listens = join(mkdtempSync(join(tmpdir(), "gateway-listens-")), "listens.txt");
    writeFileSync(listens, "");
    const child = spawnCli(["chat", "-m", "m", "hi"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ upstream: upstream.url }), GATEWAY_API_KEY: "sk-one-off-test", GATEWAY_TEST_LISTEN_LOG: listens }), ["--import", LISTEN_LOG]);
    child.stdin!.end();
    expect((await once(child, "exit"))[0]).toBe(0);
    expect(child.output().stdout).toBe("unbound\n");
    expect(readFileSync(listens, "utf8")).toBe("");
  });

  it("prints a streamed reply as it comes, and Ctrl-C aborts the upstream request", async () => {
    const writes = inWrites([[chatSse([chunk({ role: "assistant", content: "first " })], false)], [chatSse([chunk({ content: "never" }, "stop")])]]);
    const upstream = opened(await startFakeUpstream({ script: () => writes.reply }));
    const child = spawnCli(["chat", "-m", "m", "hi"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ upstream: upstream.url }), GATEWAY_API_KEY: "sk-one-off-test" }));
    child.stdin!.end();
    // The first piece is on the terminal while the upstream still holds the rest.
    await waitForOutput(child, /first /);
    const exited = once(child, "exit");
    child.kill("SIGINT");
    expect((await exited)[0]).toBe(130);
    await expect.poll(() => upstream.received[0]?.abortedAt).toBeDefined();
    expect(child.output().stdout).toBe("first ");
    writes.next();
  });
});
