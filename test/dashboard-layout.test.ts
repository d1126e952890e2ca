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
  let trafficEnd: number;
  const elsewhere: string[] = [];
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
    trafficEnd = Date.now();
    // the request log (what `gateway stats` reads) is written within 100 ms
    await vi.waitFor(async () => expect(JSON.parse((await runCli(["stats", "--json"], env)).stdout).total.requests).toBe(TRAFFIC_REQUESTS), { timeout: 5_000, interval: 100 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    // One time zone on every machine: where the hour ticks fall depends on it.
    context = await browser.newContext({ timezoneId: "UTC", colorScheme: "light" });
    await context.addInitScript(recordCanvasText);
    await context.addInitScript(recordCspViolations);
    // The page loads nothing from another origin (SPEC 9): every request any test's page makes is checked.
    context.on("request", (request) => {
      if (!request.url().startsWith(`${url}/`)) elsewhere.push(request.url());
    });
  }, 60_000);

  // Whatever a test did, its page broke no rule of the Content-Security-Policy and asked no other origin. A page left
  // open keeps its live feed, and Chromium opens at most 6 connections to one host: each one is closed.
  afterEach(async () => {
    for (const page of context.pages()) {
      expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
      await page.close();
    }
    expect(elsewhere).toEqual([]);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    gateway?.kill("SIGTERM");
    await echo?.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  /** The page at `width` px, with its data shown. */
  async function openAt(width: number): Promise<Page> {
    const page = await context.newPage();
    await page.setViewportSize({ width, height: 1000 });
    await page.goto(`${url}/ui/#key=${LOCAL_KEY}`);
    await page.locator("#app").waitFor();
    await expect.poll(() => page.locator("#requests tbody tr").count()).toBe(TRAFFIC_REQUESTS);
    await expect.poll(() => page.locator('.card[data-label="Requests"] strong').textContent()).toBe(String(TRAFFIC_REQUESTS));
    return page;
  }

  it.each(WIDTHS)("at %i px each totals table shows its COST column whole, inside its panel and the page", async (width) => {
    const page = await openAt(width);
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
    const page = await openAt(width);
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

  it.each(WIDTHS)("at %i px the request table fits its panel, outcome included", async (width) => {
    const page = await openAt(width);
    const seen = await page.locator("#requests").evaluate((table: HTMLTableElement) => {
      const box = table.parentElement!;
      const outcomes = [...table.querySelectorAll<HTMLElement>("td.outcome")].filter((td) => td.offsetParent !== null);
      return { table: table.scrollWidth, box: box.clientWidth, right: box.getBoundingClientRect().right, outcomes: outcomes.map((td) => td.getBoundingClientRect().right) };
    });
    expect(seen.table).toBeLessThanOrEqual(seen.box);
    for (const right of seen.outcomes) expect(right).toBeLessThanOrEqual(seen.right);
    const heads = await page.locator("#requests thead th").evaluateAll((ths) => ths.filter((th) => (th as HTMLElement).offsetParent !== null).map((th) => th.textContent));
    expect(heads).toEqual(
      {
        420: ["Time", "Model", "Status", "Duration"],
        900: ["Time", "Client", "Request", "Model", "Upstream", "Status", "Duration", "Cost", "Outcome"],
        1400: ["Time", "Client", "Family", "Request", "Model", "Upstream", "Status", "Duration", "TTFB", "In", "Out", "Cache", "Cost", "Outcome"],
      }[width],
    );
  });

  it.each(WIDTHS)("at %i px the filters stay inside their panel, and the live mark on one line", async (width) => {
    const page = await openAt(width);
    // the model filter lists the long ids
    await expect.poll(() => page.locator("#f-model option").count()).toBeGreaterThan(7);
    const panel = await page.locator(".panel", { has: page.locator("#requests") }).evaluate((p) => {
      const r = p.getBoundingClientRect();
      const style = getComputedStyle(p);
      return { left: r.left + parseFloat(style.paddingLeft), right: r.right - parseFloat(style.paddingRight) };
    });
    for (const select of await page.locator(".filters select").all()) {
      const r = (await select.boundingBox())!;
      const id = String(await select.getAttribute("id"));
      expect(r.x, id).toBeGreaterThanOrEqual(panel.left);
      expect(r.x + r.width, id).toBeLessThanOrEqual(panel.right);
    }
    const lines = await page.locator("#live").evaluate((e) => {
      const range = document.createRange();
      range.selectNodeContents(e);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    });
    expect(lines).toBe(1);
  });

  it.each(WIDTHS)("at %i px the chart axes read 24-hour time and no two tick labels touch, in every window, at any time", async (width) => {
    const page = await openAt(width);
    // Where the ticks fall depends on the clock: the page is shown every 5 s over the minute after the traffic, then
    // minutes and hours after it.
    for (const later of [...Array.from({ length: 12 }, (_, i) => 0.4 + 5 * i), 75, 251, 671, 3011, 40_000]) {
      await page.clock.setFixedTime(trafficEnd + later * 1000);
      for (const choice of ["auto", "900", "3600", "86400"]) {
        await page.selectOption("#window", choice);
        await nextFrames(page);
        for (const chart of await axisLabels(page)) {
          const where = `${chart.id} at ${width} px, ${later} s after, window ${choice}`;
          expect(chart.x.length, where).toBeGreaterThanOrEqual(2);
          for (const label of chart.x) expect(label.text, where).toMatch(/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/);
          const labels = [...chart.x, ...chart.y];
          // uPlot sizes its canvas to the chart's width rounded to a pixel: half a pixel past the edge is no cut
          for (const label of labels) {
            expect(label.left, `${where}: "${label.text}" is cut at the left`).toBeGreaterThanOrEqual(chart.box.left - 0.5);
            expect(label.right, `${where}: "${label.text}" is cut at the right`).toBeLessThanOrEqual(chart.box.right + 0.5);
          }
          // at least 4 px apart, so that two labels never read as one
          for (const [i, a] of labels.entries()) for (const b of labels.slice(i + 1)) expect(apart(a, b, 4), `${where}: "${a.text}" and "${b.text}"`).toBe(true);
        }
        if (later === 20.4) await page.locator(".charts").screenshot({ path: join(ARTIFACTS, `dashboard-charts-${width}-${choice}.png`) });
      }
    }
    // the time read when pointing at a chart is 24-hour too
    const plot = page.locator("#chart-requests .u-over");
    const box = (await plot.boundingBox())!;
    await page.mouse.move(box.x + box.width - 3, box.y + box.height / 2);
    await expect.poll(() => page.locator("#chart-requests").locator(".u-legend .u-series").first().locator(".u-value").textContent()).toMatch(/^\d{4}-\d\d-\d\d ([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/);
  }, 60_000);

  it.each(WIDTHS)("at %i px a streamed request is marked, with an accessible name, and one not streamed is not", async (width) => {
    const page = await openAt(width);
    const rows = page.locator("#requests tbody tr");
    // a model id or path cut short on screen is whole in the row's text
    const streamed = [rows.filter({ hasText: FIREWORKS }), rows.filter({ hasText: "gemini-2.5-pro:streamGenerateContent" })];
    const plain = [rows.filter({ hasText: "gpt-5-mini" }), rows.filter({ hasText: TINY }), rows.filter({ hasText: "gemini-2.5-pro:generateContent" })];
    expect(await Promise.all(streamed.map((row) => row.count()))).toEqual([2, 1]);
    for (const row of streamed) {
      for (const one of await row.all()) {
        const mark = one.getByRole("img", { name: "streamed reply" });
        expect(await mark.count()).toBe(1);
        expect(await mark.isVisible()).toBe(true);
        const r = (await mark.boundingBox())!;
        expect(r.x).toBeGreaterThanOrEqual(0);
        expect(r.x + r.width).toBeLessThanOrEqual(width);
        expect(r.width).toBeGreaterThan(4);
      }
    }
    for (const row of plain) {
      expect(await row.count()).toBeGreaterThan(0);
      for (const one of await row.all()) expect(await one.getByRole("img", { name: "streamed reply" }).count()).toBe(0);
    }
    // messages: two of the three were streamed
    expect(await rows.filter({ hasText: OPENROUTER }).getByRole("img", { name: "streamed reply" }).count()).toBe(2);
  });

  it.each(WIDTHS)("at %i px a cost below $0.0001 reads <$0.0001, and a group of it and an unpriced model reads as gateway stats has it", async (width) => {
    const stats = (await runCli(["stats"], env)).stdout;
    const page = await openAt(width);
    const cost = (table: string, name: string) => page.locator(`#${table} tr`, { hasText: name }).locator("td").filter({ hasText: /\$|unknown/ }).textContent();
    expect(await cost("by-model", TINY)).toBe("<$0.0001");
    expect(statsCost(stats, "MODEL", TINY)).toBe("<$0.0001");
    // curl sent the tiny model and the unpriced one: what is known is below $0.0001, the rest unknown
    expect(await cost("by-client", "curl")).toBe("unknown");
    expect(statsCost(stats, "CLIENT", "curl")).toBe("unknown");
    expect(await page.locator("#by-client tr", { hasText: "curl" }).locator("td", { hasText: "unknown" }).getAttribute("title")).toContain("1 request for a model without a known price");
    expect(await page.locator("#app").textContent()).not.toMatch(/≥</);
    await page.locator("#requests tbody tr", { hasText: TINY }).first().click();
    await expect.poll(() => page.locator("#detail section", { hasText: /^Record/ }).textContent()).toContain("Estimated cost<$0.0001");
    if (width > 640) expect(await page.locator("#requests tbody tr", { hasText: TINY }).first().locator("td.cost").textContent()).toBe("<$0.0001");
  });

  it.each(WIDTHS)("at %i px the totals and the requests sit whole inside the page, none over another (screenshots saved for a person to look at)", async (width) => {
    // The page as shown right after the traffic, whatever clock an earlier test of this context left (the chart test's
    // is hours later, when a row's time carries its date).
    await context.clock.setFixedTime(trafficEnd + 5_000);
    const page = await openAt(width);
    // The page never scrolls sideways; each part shown is inside it, of some size, and none lies over another.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    const boxes = (selector: string) =>
      page.locator(selector).evaluateAll((elements) =>
        elements
          .filter((e) => (e as HTMLElement).offsetParent !== null)
          .map((e) => {
            const { left, right, top, bottom } = e.getBoundingClientRect();
            // named by its card label, else its heading, else its text
            return { text: (e as HTMLElement).dataset.label ?? (e.querySelector("h2") ?? e).textContent!.trim(), left, right, top, bottom };
          }),
      );
    const whole = (parts: Label[], what: string) => {
      for (const part of parts) {
        expect(part.left, `${what} "${part.text}" at ${width} px`).toBeGreaterThanOrEqual(0);
        expect(part.right, `${what} "${part.text}" at ${width} px`).toBeLessThanOrEqual(width);
        expect(part.bottom - part.top, `${what} "${part.text}" at ${width} px`).toBeGreaterThan(0);
      }
      for (const [i, a] of parts.entries()) for (const b of parts.slice(i + 1)) expect(apart(a, b, 0), `${what} "${a.text}" and "${b.text}" at ${width} px`).toBe(true);
    };
    // each card shows its figure over its label
    const shown = await page.locator("#cards .card").evaluateAll((all) => all.map((card) => ({ figure: card.querySelector("strong")!.textContent, label: card.querySelector("span")!.textContent })));
    expect(shown.map((card) => card.label)).toEqual(["Requests", "Errors", "Tokens in", "Tokens out", "Cache read", "Estimated cost", "Latency p50 / p95"]);
    for (const card of shown) expect(card.figure, card.label!).toMatch(/\d/);
    whole(await boxes("#cards .card"), "card");
    const totals = await boxes(".totals > .panel");
    expect(await page.locator(".totals > .panel h2").allTextContents()).toEqual(["By model", "By client", "By upstream"]);
    expect(totals).toHaveLength(3);
    whole(totals, "totals panel");
    const requests = page.locator(".panel", { has: page.locator("#requests") });
    whole(await boxes(".panel:has(#requests)"), "requests panel");
    expect(await requests.locator("h2").textContent()).toBe("Requests");
    const headings = await boxes("#requests thead th");
    expect(headings.map((th) => th.text)).toEqual(width === 420 ? ["Time", "Model", "Status", "Duration"] : expect.arrayContaining(["Time", "Model", "Status", "Duration"]));
    whole(headings, "column heading");
    await page.screenshot({ path: join(ARTIFACTS, `dashboard-layout-${width}.png`), fullPage: true });
    // the parts at their real size, for a closer look
    await page.locator(".totals").screenshot({ path: join(ARTIFACTS, `dashboard-totals-${width}.png`) });
    await requests.screenshot({ path: join(ARTIFACTS, `dashboard-requests-${width}.png`) });
  });
});

const TRAFFIC_REQUESTS = 14;

/** A label's box on the page, in CSS pixels. */
interface Label {
  text: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Whether two boxes are at least `gap` px apart, across or down. */
const apart = (a: Label, b: Label, gap: number): boolean => a.right + gap <= b.left || b.right + gap <= a.left || a.bottom + gap <= b.top || b.bottom + gap <= a.top;

/** Two frames: what the page changed is laid out and drawn (uPlot draws in a microtask, resizes in an observer). */
const nextFrames = (page: Page) => page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));

/**
 * Every tick label of each chart as it is on the screen, drawn on its canvas (recorded by `recordCanvasText`) or
 * as page text: those under the plot are the time axis (x), those left of it the value axis (y).
 */
function axisLabels(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>(".chart")].map((chart) => {
      const plot = chart.querySelector(".u-over")!.getBoundingClientRect();
      const wrap = chart.querySelector(".u-wrap")!;
      const drawn = ((window as unknown as { canvasText: { canvas: HTMLCanvasElement; text: string; left: number; right: number; top: number; bottom: number }[] }).canvasText ?? [])
        .filter((d) => wrap.contains(d.canvas))
        .map((d) => {
          const r = d.canvas.getBoundingClientRect();
          const s = r.width / d.canvas.width;
          return { text: d.text, left: r.left + d.left * s, right: r.left + d.right * s, top: r.top + d.top * s, bottom: r.top + d.bottom * s };
        });
      const shown = [...wrap.querySelectorAll<HTMLElement>("*")]
        .filter((e) => e.offsetParent !== null && [...e.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim()))
        .map((e) => {
          const r = e.getBoundingClientRect();
          return { text: e.textContent!.trim(), left: r.left, right: r.right, top: r.top, bottom: r.bottom };
        });
      const labels = [...drawn, ...shown];
      const box = chart.getBoundingClientRect();
      return {
        id: chart.id,
        box: { left: box.left, right: box.right },
        x: labels.filter((l) => l.top >= plot.bottom - 1),
        y: labels.filter((l) => l.right <= plot.left + 1),
      };
    }),
  );
}

/**
 * Records each text a canvas draws, with its box in canvas pixels, and forgets a canvas's texts when it is cleared
 * whole (uPlot clears before each redraw): the labels a chart draws on its canvas, measured as drawn.
 */
function recordCanvasText(): void {
  type Drawn = { canvas: HTMLCanvasElement; text: string; left: number; right: number; top: number; bottom: number };
  const drawn: Drawn[] = [];
  (window as unknown as { canvasText: Drawn[] }).canvasText = drawn;
  const proto = CanvasRenderingContext2D.prototype;
  const fillText = proto.fillText;
  proto.fillText = function (this: CanvasRenderingContext2D, text: string, x: number, y: number, maxWidth?: number) {
    const m = this.measureText(text);
    const t = this.getTransform();
    const a = t.transformPoint({ x: x - m.actualBoundingBoxLeft, y: y - m.actualBoundingBoxAscent });
    const b = t.transformPoint({ x: x + m.actualBoundingBoxRight, y: y + m.actualBoundingBoxDescent });
    drawn.push({ canvas: this.canvas, text: String(text), left: Math.min(a.x, b.x), right: Math.max(a.x, b.x), top: Math.min(a.y, b.y), bottom: Math.max(a.y, b.y) });
    return maxWidth === undefined ? fillText.call(this, text, x, y) : fillText.call(this, text, x, y, maxWidth);
  };
  const clearRect = proto.clearRect;
  proto.clearRect = function (this: CanvasRenderingContext2D, x: number, y: number, w: number, h: number) {
    if (x <= 0 && y <= 0 && w >= this.canvas.width && h >= this.canvas.height) {
      for (let i = drawn.length - 1; i >= 0; i--) if (drawn[i]!.canvas === this.canvas) drawn.splice(i, 1);
    }
    return clearRect.call(this, x, y, w, h);
  };
}

/** Records each breach of the page's Content-Security-Policy (none is expected). */
function recordCspViolations(): void {
  const seen: string[] = [];
  (window as unknown as { cspViolations: string[] }).cspViolations = seen;
  document.addEventListener("securitypolicyviolation", (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
}

/** The COST of `name` in a `gateway stats` table whose first column is `title` (right-aligned under its header). */
function statsCost(stats: string, title: string, name: string): string {
  const lines = stats.split("\n");
  const head = lines.findIndex((line) => line.startsWith(`${title} `));
  const end = lines[head]!.indexOf("COST") + "COST".length;
  const row = lines.slice(head + 1).find((line) => line.startsWith(`${name} `))!;
  return row.slice(0, end).trimEnd().split(" ").at(-1)!;
}

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
