import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnv, spawnCli, waitForOutput } from "./helpers/cli.js";
import { completion, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, tempConfigDir } from "./helpers/gateway.js";
import { chatHeaders, rawRequest } from "./helpers/http.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.CI) throw new Error(`the dashboard budgets test must run in CI, but ${CHROMIUM} is missing`);

/** Screenshots for people to look at: test-artifacts/ (kept by CI runs), not committed. */
const ARTIFACTS = new URL("../test-artifacts/", import.meta.url).pathname;

/**
 * The dashboard shows each budget's use at a glance (SPEC 11, Budgets), in headless Chromium at 420, 900 and 1400 px:
 * one spent (red, its requests refused), one near its limit (amber), one with room (green), each with its figures and
 * its reset, the bars filled to what was spent.
 */
describe.runIf(hasChromium)("the dashboard's budgets", () => {
  let upstream: FakeUpstream;
  let gateway: ReturnType<typeof spawnCli>;
  let url: string;
  let browser: Browser;
  const stateDir = mkdtempSync(join(tmpdir(), "gateway-dashboard-budgets-"));

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    upstream = await startFakeUpstream({ script: () => ({ json: completion({ content: "ok" }) }) });
    // $0.10 per input token: each reply (12 tokens in) costs $1.20.
    const config = {
      prices: { "paid-*": { input: 100_000, output: 0 } },
      budgets: { daily: 10, monthly: 200 },
      upstreams: { openrouter: { url: upstream.url, key: "none", budgets: { daily: 2.5 } }, team: { url: upstream.url, key: "none", models: ["paid-team"], budgets: { monthly: 1 } } },
    };
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(config), GATEWAY_STATE_DIR: stateDir, GATEWAY_LOCAL_KEY: LOCAL_KEY });
    gateway = spawnCli(["start", "--port", "0", "--quiet"], env);
    url = (await waitForOutput(gateway, /listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    const chat = (model: string) => rawRequest(url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }) });
    // openrouter: $2.40 of $2.50 today (96%); team: $1.20 of $1 this month (spent); in all: $3.60 of $10 today.
    for (const model of ["paid-a", "paid-b", "paid-team"]) expect((await chat(model)).status).toBe(200);
    expect((await chat("paid-team")).status).toBe(429);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    gateway?.kill("SIGTERM");
    await upstream?.close();
    rmSync(stateDir, { recursive: true, force: true });
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
