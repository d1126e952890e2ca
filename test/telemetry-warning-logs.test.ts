import { once } from "node:events";
import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { cliEnv, runCli, spawnCli, waitForOutput } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, tempConfigDir } from "./helpers/gateway.js";

/**
 * SPEC 12, Traces and metrics over OTLP: "an unreachable collector costs a warning in `gateway logs` once a minute,
 * not a request". A real `gateway start` exporting to a port that refuses connections writes the warning into the
 * request log as an event line: `gateway logs` (table, `--json`, `-f`) shows it among the requests, and nothing
 * counts it as one (`stats`).
 */

const opened = closeAfterEach();
const children: ReturnType<typeof spawnCli>[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill("SIGTERM");
    if (child.exitCode === null) await once(child, "close");
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A loopback port nothing listens on: a connection to it is refused at once. */
async function refusingUrl(): Promise<string> {
  const probe = createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const url = `http://127.0.0.1:${(probe.address() as { port: number }).port}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return url;
}

describe("a collector that refuses exports, in gateway logs", () => {
  it("is a warning line among the requests (table, --json, -f), never counted as a request", async () => {
    const upstream = opened(await startFakeUpstream());
    const collector = await refusingUrl();
    const stateDir = mkdtempSync(join(tmpdir(), "gateway-otlp-logs-"));
    dirs.push(stateDir);
    const env = cliEnv({
      GATEWAY_CONFIG_DIR: tempConfigDir({ upstreams: { local: { url: upstream.url, key: "env:UPSTREAM_KEY" } } }),
      GATEWAY_STATE_DIR: stateDir,
      GATEWAY_LOCAL_KEY: LOCAL_KEY,
      UPSTREAM_KEY: FAKE_UPSTREAM_KEY,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector,
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-token-1234",
      OTEL_BSP_SCHEDULE_DELAY: "1",
      OTEL_METRIC_EXPORT_INTERVAL: "100",
    });
    const gateway = spawnCli(["start", "--port", "0"], env);
    children.push(gateway);
    const url = (await waitForOutput(gateway, /listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    const follower = spawnCli(["logs", "-f", "--json"], env);
    children.push(follower);
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const reply = await openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(reply.choices[0]!.message.content).toBeTruthy();

    // The follower sees the request and the warning as they are written.
    const followed = (await waitForOutput(follower, /^(\{"time":[^\n]*"event":"telemetry-export-failed"[^\n]*\})$/m, "stdout", 15_000))[1]!;
    const warning = JSON.parse(followed) as Record<string, unknown>;
    expect(warning).toEqual({ time: expect.any(String), event: "telemetry-export-failed", level: "warn", message: expect.stringMatching(new RegExp(`^OTLP export of (traces|metrics) to ${collector}/v1/(traces|metrics) failed: .+\\. Requests are not affected`)) });
    await waitForOutput(follower, /"requestId":"req_/);

    const table = await runCli(["logs"], env);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.split("\n");
    expect(lines.filter((line) => / warning: OTLP export of (traces|metrics) to /.test(line))).toHaveLength(1);
    expect(lines.filter((line) => line.includes("/v1/chat/completions"))).toHaveLength(1);

    const json = (await runCli(["logs", "--json"], env)).stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(json.filter((line) => line.event === "telemetry-export-failed")).toEqual([warning]);
    expect(json.filter((line) => typeof line.requestId === "string")).toHaveLength(1);

    const stats = JSON.parse((await runCli(["stats", "--json"], env)).stdout) as { total: { requests: number; errors: number } };
    expect(stats.total).toMatchObject({ requests: 1, errors: 0 });
    for (const output of [table.stdout, table.stderr, follower.output().stdout, gateway.output().stdout]) expect(output).not.toContain("collector-token-1234");
  });
});
