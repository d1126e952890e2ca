import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, hasChromium, launchChromium, requireChromiumInCi, startDashboardGateway, type DashboardGateway } from "./helpers/chromium.js";
import { completion, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY } from "./helpers/gateway.js";
import { rawRequest } from "./helpers/http.js";
import { startStrictLiteLLM, type StrictLiteLLM } from "./helpers/strict/litellm.js";

requireChromiumInCi("the dashboard team budget test");

/**
 * SPEC 12, Team upstream: the team budget (LiteLLM's `/key/info`: spend, max_budget, budget_reset_at) is shown on the
 * dashboard as in status, stats and the status line: a card beside the gateway's own budgets, in headless Chromium at
 * 420, 900 and 1400 px, its text, its box inside the page and overlapping no other card.
 */
describe.runIf(hasChromium)("the dashboard's team budget", () => {
  let other: FakeUpstream;
  let team: StrictLiteLLM;
  let gateway: DashboardGateway;
  let browser: Browser;

  beforeAll(async () => {
    other = await startFakeUpstream({ script: () => ({ json: completion({ content: "ok" }) }) });
    // No master key: every key passes, and /key/info tells the fixture's budget ($12.30 of $50, resets 2027-01-01).
    team = await startStrictLiteLLM({ virtualKeys: {} });
    const config = {
      budgets: { daily: 10 },
      upstreams: { local: { url: other.url, key: "none" }, team: { kind: "litellm", url: team.url, key: "none", formats: ["chat"], team: true } },
    };
    gateway = await startDashboardGateway(config, "dashboard-team-budget");
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    gateway?.close();
    await other?.close();
    await team?.close();
  });

  it("the summary the page reads carries the team budget", async () => {
    const res = await rawRequest(gateway.url, { path: "/ui/api/summary", headers: { authorization: `Bearer ${LOCAL_KEY}` } });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).teams).toEqual([{ upstream: "team", spentUsd: 12.3, limitUsd: 50, resetsAt: "2027-01-01T00:00:00Z", readAt: expect.any(String) }]);
  });

  it.each([420, 900, 1400])("at %i px the team budget is a card of its own: spent of limit, reset, inside the page, overlapping none", async (width) => {
    const page = await browser.newPage({ viewport: { width, height: 900 }, timezoneId: "UTC" });
    try {
      await page.goto(`${gateway.url}/ui/#key=${LOCAL_KEY}`);
      await page.locator(".team-budget").waitFor();
      const cards = await page.locator(".budget").evaluateAll((items) =>
        items.map((item) => {
          const box = item.getBoundingClientRect();
          const bar = item.querySelector(".bar")?.getBoundingClientRect();
          const fill = item.querySelector(".fill")?.getBoundingClientRect();
          return {
            scope: (item as HTMLElement).dataset.scope,
            period: (item as HTMLElement).dataset.period,
            level: item.className,
            text: (item as HTMLElement).innerText.replace(/\s+/g, " ").trim(),
            filled: bar && fill ? Math.round((fill.width / bar.width) * 100) : null,
            box: { left: box.left, top: box.top, right: box.right, bottom: box.bottom },
            inside: box.left >= 0 && box.right <= document.documentElement.clientWidth && box.width > 0 && box.height > 0,
          };
        }),
      );
      expect(cards.map(({ scope, period, level, filled, inside }) => ({ scope, period, level, filled, inside }))).toEqual([
        { scope: "all", period: "daily", level: "budget ok", filled: 0, inside: true },
        { scope: "team", period: "team", level: "budget ok team-budget", filled: 25, inside: true },
      ]);
      expect(cards[1]!.text).toMatch(/^Team, team \$12\.30 of \$50\.00 \(24%\) resets 2027-01-01 00:00 · as the team gateway said at \d\d:\d\d$/);
      const [a, b] = cards.map((card) => card.box);
      const overlap = a!.left < b!.right && b!.left < a!.right && a!.top < b!.bottom && b!.top < a!.bottom;
      expect(overlap).toBe(false);
      await page.screenshot({ path: join(ARTIFACTS, `dashboard-team-budget-${width}.png`), fullPage: false });
    } finally {
      await page.close();
    }
  });
});
