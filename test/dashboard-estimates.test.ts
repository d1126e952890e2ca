import { join } from "node:path";
import OpenAI from "openai";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, hasChromium, launchChromium, requireChromiumInCi, startDashboardGateway, type DashboardGateway } from "./helpers/chromium.js";
import { chatSse, chunk, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY } from "./helpers/gateway.js";

requireChromiumInCi("the dashboard estimates test");

/**
 * The dashboard shows what the gateway estimated and what your own login spent as such (SPEC 11, Budgets), in
 * headless Chromium: a chat stream that reported no usage has `~` before its tokens and cost, in its row and in the
 * totals; a request through a `key: "client"` upstream has its cost marked `own`, and a card of its own ("Own login,
 * at API prices") that the estimated cost leaves out.
 */
describe.runIf(hasChromium)("the dashboard's estimates and own login", () => {
  let upstream: FakeUpstream;
  let gateway: DashboardGateway;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    // A chat server that reports usage only when asked, as real ones do.
    upstream = await startFakeUpstream({
      script: () => ({ headers: { "content-type": "text/event-stream" }, chunks: [chatSse([chunk({ role: "assistant", content: "" }), chunk({ content: "Hello there, my good friend." }), chunk({}, "stop")])] }),
    });
    // $0.10 per input token, $0.01 per output token.
    const config = {
      prices: { "paid-*": { input: 100_000, output: 10_000 } },
      upstreams: { paid: { url: upstream.url, key: "none" }, own: { url: upstream.url, key: "client", models: ["paid-own"] } },
    };
    gateway = await startDashboardGateway(config, "dashboard-estimates");
    url = gateway.url;
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    for (const model of ["paid-1", "paid-own"]) {
      const events = await openai.chat.completions.create({ model, stream: true, messages: [{ role: "user", content: "hi" }] });
      for await (const _ of events);
    }
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    gateway?.close();
    await upstream?.close();
  });

  it("marks estimated figures with ~ and shows the own login's cost apart", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      await page.goto(`${url}/ui/#key=${LOCAL_KEY}`);
      await page.locator("#requests tbody tr, #requests tr td").first().waitFor();
      const cards = Object.fromEntries(await page.locator("#cards .card").evaluateAll((items) => items.map((item) => [(item as HTMLElement).dataset.label, item.querySelector("strong")!.textContent])));
      // Each stream: 8 tokens in (the request's quick estimate), 7 out ("Hello there, my good friend.": 28 characters over 4).
      expect(cards).toMatchObject({ "Tokens in": "~16", "Tokens out": "~14", "Estimated cost": "~$0.87", "Own login, at API prices": "$0.87" });
      const rows = await page.locator("#requests tr").evaluateAll((trs) =>
        trs.flatMap((tr) => {
          const cell = (name: string) => (tr.querySelector(`td.${name}`) as HTMLElement | null)?.innerText.trim();
          return cell("model") === undefined ? [] : [[cell("model"), cell("cost")]];
        }),
      );
      expect(rows).toEqual([
        ["paid-own", "~$0.87 own"],
        ["paid-1", "~$0.87"],
      ]);
      const upstreams = await page.locator("#by-upstream").innerText();
      expect(upstreams.split("\n").map((line) => line.split("\t").slice(0, 7))).toEqual([
        ["UPSTREAM", "REQUESTS", "ERRORS", "TOKENS IN", "TOKENS OUT", "COST", "OWN LOGIN"],
        ["own", "1", "0", "~8", "~7", "~$0.00", "$0.87"],
        ["paid", "1", "0", "~8", "~7", "~$0.87", "-"],
      ]);
      await page.screenshot({ path: join(ARTIFACTS, "dashboard-estimates-1400.png"), fullPage: false });
    } finally {
      await page.close();
    }
  });
});
