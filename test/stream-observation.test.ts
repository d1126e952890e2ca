import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { readRecords } from "../src/request-log/read-log.js";
import { cliEnv, spawnCli, waitForOutput } from "./helpers/cli.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, tempConfigDir, useGatewayPair } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders } from "./helpers/http.js";

/**
 * Reads a stream in lockstep with the upstream: it writes each event only after the client has read the one before,
 * so a gateway that holds back a single event (to observe usage, to capture it, for a stalled dashboard page) stops
 * the stream. Each event gets 5 s; the failure names the one that did not come. Returns how many whole events came.
 */
async function readInLockstep(upstream: FakeUpstream, response: Promise<Response>): Promise<number> {
  let release = () => {};
  upstream.behaviour.beforeEvent = () => new Promise<void>((resolve) => (release = resolve));
  const reader = (await response).body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let seen = 0;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<"stuck">((resolve) => (timer = setTimeout(() => resolve("stuck"), 5_000)));
    const step = await Promise.race([reader.read(), stuck]);
    clearTimeout(timer);
    if (step === "stuck") throw new Error(`the client read ${seen} events, then nothing for 5 s while the upstream waited for it to read the last one sent: the gateway held it back`);
    if (step.done) return seen;
    text += decoder.decode(step.value, { stream: true });
    const complete = text.split("\n\n").length - 1;
    if (complete > seen) {
      seen = complete;
      release();
    }
  }
}

const streamRequest = (gatewayUrl: string, family: "chat" | "messages") =>
  fetch(`${gatewayUrl}${family === "chat" ? "/v1/chat/completions" : "/v1/messages"}`, {
    method: "POST",
    headers: family === "chat" ? chatHeaders(LOCAL_KEY) : messagesHeaders(LOCAL_KEY),
    body: JSON.stringify({ model: "m", max_tokens: 50, stream: true, messages: [{ role: "user", content: "one two three four five six seven eight" }] }),
  });

describe("usage observation holds back no event", () => {
  const pair = useGatewayPair();

  it.each(["chat", "messages"] as const)("%s: each event reaches the client before the upstream writes the next", async (family) => {
    const { upstream, gateway } = await pair.start();
    const events = await readInLockstep(upstream, streamRequest(gateway.url, family));
    expect(events).toBe(upstream.last().sentAt.length);
    // the usage came from the last events, so the observer saw the whole stream while it was delivered
    await expect.poll(() => gateway.records.at(-1)).toMatchObject({ inputTokens: 11, outputTokens: 9 });
  });
});

describe("a dashboard open, one page stalled, capture on", () => {
  const pair = useGatewayPair();

  it("holds back no event of a stream either", async () => {
    const { upstream, gateway } = await pair.start({ file: { capture: "all" } });
    const pages = await Promise.all(
      [true, false].map(async (stalled) => {
        const res = await fetch(`${gateway.url}/ui/api/live`, { headers: { authorization: `Bearer ${LOCAL_KEY}` } });
        const reader = res.body!.getReader();
        if (!stalled) void (async () => { while (!(await reader.read()).done); })().catch(() => undefined);
        return reader;
      }),
    );
    for (let run = 0; run < 3; run++) {
      const events = await readInLockstep(upstream, streamRequest(gateway.url, "chat"));
      expect(events).toBe(upstream.last().sentAt.length);
    }
    await expect.poll(() => gateway.records.length).toBe(3);
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
