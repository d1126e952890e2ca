import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, hasChromium, launchChromium, requireChromiumInCi, startDashboardGateway, type DashboardGateway } from "./helpers/chromium.js";
import { completion, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY } from "./helpers/gateway.js";
import { chatHeaders, rawRequest } from "./helpers/http.js";

requireChromiumInCi("the dashboard budgets test");

/**
 * The dashboard shows each budget's use at a glance (SPEC 11, Budgets), in headless Chromium at 420, 900 and 1400 px:
 * one spent (red, its requests refused), one near its limit (amber), one with room (green), each with its figures and
 * its reset, the bars filled to what was spent.
 */
describe.runIf(hasChromium)("the dashboard's budgets", () => {
  let upstream: FakeUpstream;
  let gateway: DashboardGateway;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    upstream = await startFakeUpstream({ script: () => ({ json: completion({ content: "ok" }) }) });
    // $0.10 per input token: each reply (12 tokens in) costs $1.20.
    const config = {
      prices: { "paid-*": { input: 100_000, output: 0 } },
      budgets: { daily: 10, monthly: 200 },
      upstreams: { openrouter: { url: upstream.url, key: "none", budgets: { daily: 2.5 } }, team: { url: upstream.url, key: "none", models: ["paid-team"], budgets: { monthly: 1 } } },
    };
    gateway = await startDashboardGateway(config, "dashboard-budgets");
    url = gateway.url;
    const chat = (model: string) => rawRequest(url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }) });
    // openrouter: $2.40 of $2.50 today (96%); team: $1.20 of $1 this month (spent); in all: $3.60 of $10 today.
    for (const model of ["paid-a", "paid-b", "paid-team"]) expect((await chat(model)).status).toBe(200);
    expect((await chat("paid-team")).status).toBe(429);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    gateway?.close();
    await upstream?.close();
  });

  it.each([420, 900, 1400])("at %i px each budget shows its use, figures and reset, inside the page", async (width) => {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    try {
      await page.goto(`${url}/ui/#key=${LOCAL_KEY}`);
      await page.locator(".budget").first().waitFor();
      const budgets = await page.locator(".budget").evaluateAll((items) =>
        items.map((item) => {
          const box = item.getBoundingClientRect();
          const bar = item.querySelector(".bar")!.getBoundingClientRect();
          const fill = item.querySelector(".fill")!.getBoundingClientRect();
          return {
            scope: (item as HTMLElement).dataset.scope,
            period: (item as HTMLElement).dataset.period,
            level: item.className,
            text: (item as HTMLElement).innerText.replace(/\s+/g, " ").trim(),
            filled: Math.round((fill.width / bar.width) * 100),
            inside: box.left >= 0 && box.right <= document.documentElement.clientWidth,
          };
        }),
      );
      expect(budgets.map(({ scope, period, level, filled, inside }) => ({ scope, period, level, filled, inside }))).toEqual([
        { scope: "all", period: "daily", level: "budget ok", filled: 36, inside: true },
        { scope: "all", period: "monthly", level: "budget ok", filled: 2, inside: true },
        { scope: "openrouter", period: "daily", level: "budget near", filled: 96, inside: true },
        { scope: "team", period: "monthly", level: "budget spent", filled: 100, inside: true },
      ]);
      expect(budgets[0]!.text).toMatch(/^Daily, all upstreams \$3\.60 of \$10\.00 \(36%\) resets \d{4}-\d\d-\d\d 00:00$/);
      expect(budgets[3]!.text).toMatch(/^Monthly, team \$1\.20 of \$1\.00 \(120%\) · spent resets \d{4}-\d\d-01 00:00$/);
      await page.screenshot({ path: join(ARTIFACTS, `dashboard-budgets-${width}.png`), fullPage: false });
    } finally {
      await page.close();
    }
  });
});
