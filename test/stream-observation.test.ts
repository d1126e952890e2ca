import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { afterEach, describe, expect, it } from "vitest";
import { readRecords } from "../src/request-log/read-log.js";
import { cliEnv, spawnCli, waitForOutput } from "./helpers/cli.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, tempConfigDir, useGatewayPair } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders } from "./helpers/http.js";

/** When each whole SSE event (ending in a blank line) arrived, in `performance.now()` time. */
async function eventArrivals(response: Response): Promise<number[]> {
  const arrivals: number[] = [];
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of response.body!) {
    const now = performance.now();
    text += decoder.decode(chunk, { stream: true });
    const complete = text.split("\n\n").length - 1;
    while (arrivals.length < complete) arrivals.push(now);
  }
  return arrivals;
}

/** `base` is the gateway, or the fake upstream itself (which serves the messages family under `/anthropic`). */
const streamRequest = (base: string, family: "chat" | "messages", key = LOCAL_KEY) =>
  fetch(`${base}${family === "chat" ? "/v1/chat/completions" : key === LOCAL_KEY ? "/v1/messages" : "/anthropic/v1/messages"}`, {
    method: "POST",
    headers: family === "chat" ? chatHeaders(key) : messagesHeaders(key),
    body: JSON.stringify({ model: "m", max_tokens: 50, stream: true, messages: [{ role: "user", content: "one two three four five six seven eight" }] }),
  });

describe("usage observation costs the stream nothing", () => {
  const pair = useGatewayPair();

  it.each(["chat", "messages"] as const)("%s: each event arrives as late through the gateway as direct, within 20 ms", async (family) => {
    const { upstream, gateway } = await pair.start();
    upstream.behaviour.chunkDelayMs = 40;
    const lateness = async (base: string, key: string) => {
      const arrivals = await eventArrivals(await streamRequest(base, family, key));
      const sent = upstream.last().sentAt;
      expect(arrivals).toHaveLength(sent.length);
      return Math.max(...arrivals.map((at, i) => at - sent[i]!));
    };
    const direct = await lateness(upstream.url, FAKE_UPSTREAM_KEY);
    const through = await lateness(gateway.url, LOCAL_KEY);
    expect(through - direct).toBeLessThan(20);
    // the usage came from the last events, so the observer saw the whole stream while it was delivered
    await expect.poll(() => gateway.records.at(-1)).toMatchObject({ inputTokens: 11, outputTokens: 9 });
  });
});

describe("a dashboard open, one page stalled, capture on", () => {
  const pair = useGatewayPair();

  it("each event arrives as late as with no dashboard, within 20 ms", async () => {
    const { upstream, gateway } = await pair.start({ file: { capture: "all" } });
    upstream.behaviour.chunkDelayMs = 40;
    const lateness = async () => {
      const arrivals = await eventArrivals(await streamRequest(gateway.url, "chat"));
      const sent = upstream.last().sentAt;
      expect(arrivals).toHaveLength(sent.length);
      return Math.max(...arrivals.map((at, i) => at - sent[i]!));
    };
    const alone = await lateness();
    const pages = await Promise.all(
      [true, false].map(async (stalled) => {
        const res = await fetch(`${gateway.url}/ui/api/live`, { headers: { authorization: `Bearer ${LOCAL_KEY}` } });
        const reader = res.body!.getReader();
        if (!stalled) void (async () => { while (!(await reader.read()).done); })().catch(() => undefined);
        return reader;
      }),
    );
    const watched = await lateness();
    expect(watched - alone).toBeLessThan(20);
    for (const reader of pages) await reader.cancel();
  });
});

describe.runIf(process.platform === "linux")("a stream of many megabytes", () => {
  let upstream: FakeUpstream | undefined;
  let child: ReturnType<typeof spawnCli> | undefined;
  afterEach(async () => {
    child?.kill("SIGKILL");
    await upstream?.close();
  });

  /** The gateway process's peak resident memory so far, from the kernel. */
  const peakRss = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

  it("passes 192 MiB through without holding it: the gateway's peak memory grows by far less", async () => {
    upstream = await startFakeUpstream();
    const stateDir = `${tempConfigDir()}/state`;
    child = spawnCli(["start", "--port", "0", "--quiet"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_STATE_DIR: stateDir, GATEWAY_UPSTREAM: upstream.url, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY }));
    const [, url] = (await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/)) as unknown as [string, string];
    await (await streamRequest(url, "chat")).text();
    const before = peakRss(child.pid!);

    const total = 192 * 1024 * 1024;
    upstream.behaviour.bulkBytes = total;
    let received = 0;
    for await (const chunk of (await streamRequest(url, "chat")).body!) received += chunk.length;
    expect(received).toBeGreaterThan(total);

    const growth = peakRss(child.pid!) - before;
    // Holding the stream would take 192 MiB. A third of it leaves room for what V8's young generation grows by
    // under this allocation rate (36-42 MB alone on an idle machine, 50 MB with the rest of the suite running).
    expect(growth).toBeLessThan(64 * 1024 * 1024);
    await expect.poll(async () => (await readRecords(stateDir)).records.length, { message: "the big stream was not logged" }).toBe(2);
    const { records } = await readRecords(stateDir);
    expect(records[1]).toMatchObject({ status: 200, outcome: "complete", inputTokens: 11, outputTokens: 9 });
  });
});
