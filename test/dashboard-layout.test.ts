import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startEchoServer, type EchoServer } from "../src/echo/echo-server.js";
import { cliEnv, runCli, spawnCli, waitForOutput } from "./helpers/cli.js";
import { FAKE_UPSTREAM_KEY } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, tempConfigDir } from "./helpers/gateway.js";
import { chatHeaders, rawRequest } from "./helpers/http.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.CI) throw new Error(`the dashboard layout test must run in CI, but ${CHROMIUM} is missing`);

/** Screenshots for people to look at: test-artifacts/ (kept by CI runs), not committed. */
const ARTIFACTS = new URL("../test-artifacts/", import.meta.url).pathname;
const WIDTHS = [420, 900, 1400] as const;

/** Model ids as long as real ones (Fireworks, OpenRouter with a variant), beside short ones. */
const FIREWORKS = "accounts/fireworks/models/qwen3-coder-480b-a35b-instruct";
const OPENROUTER = "openrouter/anthropic/claude-sonnet-4.5:thinking";
/** Priced so low that one request costs less than $0.0001. */
const TINY = "tiny-local-model";
/** In no price table: its cost is unknown. */
const UNPRICED = "my-finetune-v3";

describe.runIf(hasChromium)("the dashboard's layout at 420, 900 and 1400 px, with the traffic of a working day", () => {
  let echo: EchoServer;
  let gateway: ReturnType<typeof spawnCli>;
  let url: string;
  let env: NodeJS.ProcessEnv;
  let browser: Browser;
  let context: BrowserContext;
  const stateDir = mkdtempSync(join(tmpdir(), "gateway-dashboard-layout-"));

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    // The echo upstream as a real upstream URL (not the built-in `echo`, which costs nothing), so `prices` apply.
    echo = await startEchoServer({ messages: "anthropic", gemini: "gemini" });
    const prices = {
      "gpt-5-mini": { input: 0.25, output: 2 },
      [FIREWORKS]: { input: 0.45, output: 1.8 },
      [OPENROUTER]: { input: 3, output: 15 },
      "gemini-2.5-pro": { input: 1.25, output: 10 },
      [TINY]: { input: 1, output: 1 },
    };
    env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ prices }), GATEWAY_STATE_DIR: stateDir, GATEWAY_UPSTREAM: echo.url, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY });
    gateway = spawnCli(["start", "--port", "0", "--quiet"], env);
    url = (await waitForOutput(gateway, /listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    await sendTraffic(url);
    // the request log (what `gateway stats` reads) is written within 100 ms
    await vi.waitFor(async () => expect(JSON.parse((await runCli(["stats", "--json"], env)).stdout).total.requests).toBe(TRAFFIC_REQUESTS), { timeout: 5_000, interval: 100 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    // One time zone on every machine, so that the times the page shows are the ones the test expects.
    context = await browser.newContext({ timezoneId: "UTC", colorScheme: "light" });
  }, 60_000);

  // A page left open keeps its live feed, and Chromium opens at most 6 connections to one host: close each one.
  afterEach(async () => {
    for (const page of context.pages()) await page.close();
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    gateway?.kill("SIGTERM");
    await echo?.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  /** The page at `width` px, with its data shown; every URL it asked for is kept, to check none leaves the gateway. */
  async function openAt(width: number): Promise<{ page: Page; requests: string[] }> {
    const page = await context.newPage();
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    await page.setViewportSize({ width, height: 1000 });
    await page.goto(`${url}/ui/#key=${LOCAL_KEY}`);
    await page.locator("#app").waitFor();
    await expect.poll(() => page.locator("#requests tbody tr").count()).toBe(TRAFFIC_REQUESTS);
    await expect.poll(() => page.locator('.card[data-label="Requests"] strong').textContent()).toBe(String(TRAFFIC_REQUESTS));
    return { page, requests };
  }

  it.each(WIDTHS)("at %i px each totals table shows its COST column whole, inside its panel and the page", async (width) => {
    const { page } = await openAt(width);
    for (const table of ["by-model", "by-client", "by-upstream"]) {
      const seen = await page.locator(`#${table}`).evaluate((t: HTMLTableElement) => {
        const box = t.parentElement!.getBoundingClientRect();
        const column = [...t.rows[0]!.cells].findIndex((th) => th.textContent === "Cost");
        const cells = [...t.rows].map((row) => row.cells[column]!);
        return {
          box: { left: box.left, right: box.right },
          cells: cells.map((cell) => ({ shown: cell.offsetParent !== null, left: cell.getBoundingClientRect().left, right: cell.getBoundingClientRect().right, cut: cell.scrollWidth > cell.clientWidth })),
        };
      });
      expect(seen.cells.length, table).toBeGreaterThan(1);
      for (const cell of seen.cells) {
        expect(cell, table).toMatchObject({ shown: true, cut: false });
        expect(cell.left, table).toBeGreaterThanOrEqual(seen.box.left);
        expect(cell.right, table).toBeLessThanOrEqual(Math.min(seen.box.right, width));
      }
    }
  });

  it.each(WIDTHS)("at %i px a long model id is shown whole in its totals row, clear of the latency columns", async (width) => {
    const { page } = await openAt(width);
    const heads = await page.locator("#by-model th").evaluateAll((ths) => ths.filter((th) => (th as HTMLElement).offsetParent !== null).map((th) => th.textContent));
    // a phone-width screen keeps how many, what they cost and how fast
    expect(heads).toEqual(width === 420 ? ["Model", "Requests", "Cost", "P50"] : ["Model", "Requests", "Errors", "Tokens in", "Tokens out", "Cost", "P50", "P95"]);
    for (const id of [FIREWORKS, OPENROUTER]) {
      const cells = await page.locator("#by-model tr", { hasText: id }).locator("td").evaluateAll((tds) =>
        tds
          .filter((td) => (td as HTMLElement).offsetParent !== null)
          .map((td) => {
            const r = td.getBoundingClientRect();
            const box = td.closest(".scroll-x")!.getBoundingClientRect();
            return { text: td.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom, inside: r.left >= box.left && r.right <= box.right, cut: td.scrollWidth > td.clientWidth };
          }),
      );
      const [name, ...figures] = cells;
      expect(name).toMatchObject({ text: id, inside: true, cut: false });
      expect(figures).toHaveLength(heads.length - 1);
      for (const figure of figures) {
        expect(figure, id).toMatchObject({ inside: true, cut: false });
        expect(figure.left, `${id} overlaps ${figure.text}`).toBeGreaterThanOrEqual(name!.right);
      }
      expect(figures.at(-1)!.text).toMatch(/^\d+ms$/);
    }
  });

  it.each(WIDTHS)("at %i px (screenshot saved for a person to look at)", async (width) => {
    const { page, requests } = await openAt(width);
    await page.screenshot({ path: join(ARTIFACTS, `dashboard-layout-${width}.png`), fullPage: true });
    expect(requests.every((r) => r.startsWith(`${url}/`))).toBe(true);
  });
});

const TRAFFIC_REQUESTS = 14;

/**
 * What a working day sends: the official SDKs of three formats, streamed and not, long model ids, a curl script on a
 * model priced at almost nothing and on one without a price, and requests the gateway refuses.
 */
async function sendTraffic(url: string): Promise<void> {
  const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: url, apiKey: LOCAL_KEY, maxRetries: 0 });
  const genai = new GoogleGenAI({ apiKey: LOCAL_KEY, httpOptions: { baseUrl: `${url}/gemini` } });
  const prompt = "Explain what this function does and suggest a better name for it, in two sentences.";
  for (let i = 0; i < 2; i++) {
    await openai.chat.completions.create({ model: "gpt-5-mini", messages: [{ role: "user", content: prompt }] });
    for await (const _chunk of await openai.chat.completions.create({ model: FIREWORKS, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: prompt }] })) {
      // drain
    }
    for await (const _event of await anthropic.messages.create({ model: OPENROUTER, max_tokens: 200, stream: true, messages: [{ role: "user", content: prompt }] })) {
      // drain
    }
  }
  await anthropic.messages.create({ model: OPENROUTER, max_tokens: 200, messages: [{ role: "user", content: prompt }] });
  for await (const _chunk of await genai.models.generateContentStream({ model: "gemini-2.5-pro", contents: prompt })) {
    // drain
  }
  await genai.models.generateContent({ model: "gemini-2.5-pro", contents: prompt });
  const curl = { ...chatHeaders(LOCAL_KEY), "user-agent": "curl/8.5.0" };
  for (const model of [TINY, TINY, UNPRICED]) {
    const res = await rawRequest(url, { method: "POST", path: "/v1/chat/completions", headers: curl, body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }) });
    expect(res.status).toBe(200);
  }
  const refused = await rawRequest(url, { method: "POST", path: "/v1/chat/completions", headers: { ...curl, authorization: "Bearer gw-wrong" }, body: "{}" });
  expect(refused.status).toBe(401);
  const invalid = await rawRequest(url, { method: "POST", path: "/v1/chat/completions", headers: curl, body: JSON.stringify({ model: "gpt-5-mini" }) });
  expect(invalid.status).toBe(400);
}
