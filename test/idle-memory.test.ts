import { afterEach, describe, expect, it, vi } from "vitest";
import { createIdleMemory } from "../src/server/idle-memory.js";
import { cliEnv, spawnCli, waitForOutput } from "./helpers/cli.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { chatHeaders } from "./helpers/http.js";

const MB = 1024 * 1024;

describe("idle memory", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** An occupancy over a heap the test sizes; a collection shrinks it to 10 MB. */
  function recorded(collect: () => Promise<void> = async () => {}) {
    const heap = { size: 10 * MB };
    const collections: number[] = [];
    const occupancy = createIdleMemory({
      quietMs: 1_000,
      growthBytes: 16 * MB,
      heapSize: () => heap.size,
      collect: async () => {
        collections.push(heap.size);
        await collect();
        heap.size = 10 * MB;
      },
    });
    return { heap, collections, occupancy };
  }

  it("collects once no request has been open for the quiet time and the heap grew", async () => {
    vi.useFakeTimers();
    const { heap, collections, occupancy } = recorded();
    occupancy.busy();
    heap.size = 90 * MB;
    occupancy.quiet();
    await vi.advanceTimersByTimeAsync(999);
    expect(collections).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(collections).toEqual([90 * MB]);
    // Once per burst: quiet again without new growth collects nothing.
    occupancy.busy();
    occupancy.quiet();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(collections).toEqual([90 * MB]);
  });

  it("counts the quiet time from the last request, and not at all while one is open", async () => {
    vi.useFakeTimers();
    const { heap, collections, occupancy } = recorded();
    heap.size = 60 * MB;
    occupancy.busy();
    occupancy.quiet();
    await vi.advanceTimersByTimeAsync(600);
    occupancy.busy();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(collections).toEqual([]);
    occupancy.quiet();
    await vi.advanceTimersByTimeAsync(999);
    expect(collections).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(collections).toEqual([60 * MB]);
  });

  it("leaves a heap that grew less than the threshold alone, counting growth from the smallest size seen", async () => {
    vi.useFakeTimers();
    const { heap, collections, occupancy } = recorded();
    heap.size = 25 * MB;
    occupancy.quiet();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(collections).toEqual([]);
    // V8 shrank it on its own to 4 MB: 4 + 16 is the new mark.
    heap.size = 4 * MB;
    occupancy.quiet();
    await vi.advanceTimersByTimeAsync(1_000);
    heap.size = 20 * MB;
    occupancy.quiet();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(collections).toEqual([20 * MB]);
  });

  it("starts no second collection while one runs, and stops asking when collecting is unavailable", async () => {
    vi.useFakeTimers();
    let fail: (error: Error) => void = () => {};
    const { heap, collections, occupancy } = recorded(() => new Promise((_, reject) => (fail = reject)));
    heap.size = 50 * MB;
    occupancy.quiet();
    await vi.advanceTimersByTimeAsync(1_000);
    occupancy.quiet();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(collections).toEqual([50 * MB]);
    fail(new Error("inspector not available"));
    await vi.advanceTimersByTimeAsync(0);
    heap.size = 80 * MB;
    occupancy.quiet();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(collections).toEqual([50 * MB]);
  });

  describe("a real gateway under load", () => {
    let upstream: FakeUpstream | undefined;
    afterEach(async () => {
      await upstream?.close();
    });

    // V8's own trace says what the heap had committed after each collection: "… -> used (committed) MB".
    function committedAfter(line: string): number {
      return Number(/-> [\d.]+ \(([\d.]+)\) MB/.exec(line)![1]);
    }

    it("gives the heap back within 5 s once the load has stopped", async () => {
      upstream = await startFakeUpstream();
      const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: "gw-k" });
      const child = spawnCli(["start", "--port", "0", "--quiet", "--upstream", upstream.url], env, ["--trace-gc"]);
      try {
        const [, url] = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
        const collections = () => child.output().stdout.split("\n").filter((line) => /(Scavenge|Mark-Compact)/.test(line));
        const idle = Math.max(...collections().map(committedAfter), 0);
        const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: "a b c d e" }] });
        const send = async () => (await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: chatHeaders("gw-k"), body })).text();
        // 50 clients at a time until the heap has grown by 24 MB (more than the 16 MB that makes an idle spell worth a collection).
        let grown = idle;
        for (let batch = 0; batch < 40 && grown < idle + 24; batch++) {
          await Promise.all(Array.from({ length: 50 }, async () => { for (let i = 0; i < 20; i++) await send(); }));
          grown = Math.max(grown, ...collections().map(committedAfter));
        }
        expect(grown).toBeGreaterThanOrEqual(idle + 24);
        const loadEnded = child.output().stdout.length;
        const [line] = await waitForOutput(child, /Mark-Compact \(reduce\)[^\n]*low memory notification/, "stdout", 5_000, loadEnded);
        expect(committedAfter(line)).toBeLessThan(grown - 16);
        // The inspector session it takes for that says nothing on the terminal ("Debugger attached" or the like).
        expect(child.output().stderr).toBe("");
      } finally {
        child.kill("SIGKILL");
      }
    });
  });
});
