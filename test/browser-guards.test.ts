import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, type TestGateway } from "./helpers/gateway.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.CI) throw new Error(`the browser test must run in CI, but ${CHROMIUM} is missing (.ci/run installs Debian's chromium)`);

/** A local web page on its own origin: an empty document the test runs `fetch()` from. */
async function startPageServer(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>page</title>"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** What a page's `fetch()` got: the status and body it could read, or the error the browser raised. */
type Outcome = { status: number; body: string } | { error: string };

describe.runIf(hasChromium)("the guards, seen from a real browser (headless Chromium)", () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let context: BrowserContext;
  let profile: string;
  let other: Awaited<ReturnType<typeof startPageServer>>;
  let allowed: Awaited<ReturnType<typeof startPageServer>>;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    other = await startPageServer();
    allowed = await startPageServer();
    gateway = await startTestGateway(upstream.url, { flags: { cors: [allowed.origin] } });
    profile = mkdtempSync(join(tmpdir(), "gateway-chromium-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
    await gateway?.close(0);
    await upstream?.close();
    other?.server.close();
    allowed?.server.close();
  });

  /** Opens `origin` in a fresh tab and runs both kinds of cross-origin request against the gateway from it. */
  async function fetchFrom(origin: string): Promise<{ simple: Outcome; preflighted: Outcome }> {
    const page = await context.newPage();
    try {
      await page.goto(origin);
      return await page.evaluate(
        async ({ base, key }) => {
          const run = async (init: RequestInit): Promise<Outcome> => {
            try {
              const response = await fetch(`${base}/v1/chat/completions`, { method: "POST", ...init });
              return { status: response.status, body: await response.text() };
            } catch (error) {
              return { error: String(error) };
            }
          };
          const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: "from a web page" }] });
          return {
            // No preflight: text/plain is a "simple" content type, so the browser sends it straight away.
            simple: await run({ headers: { "content-type": "text/plain" }, body }),
            // JSON and Authorization need a preflight OPTIONS first.
            preflighted: await run({ headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body }),
          };
        },
        { base: gateway.url, key: LOCAL_KEY },
      );
    } finally {
      await page.close();
    }
  }

  it("refuses a page on another local origin: both requests fail and nothing reaches the upstream", async () => {
    const received = upstream.received.length;
    const { simple, preflighted } = await fetchFrom(other.origin);
    expect(simple).toEqual({ error: "TypeError: Failed to fetch" });
    expect(preflighted).toEqual({ error: "TypeError: Failed to fetch" });
    expect(upstream.received.length).toBe(received);
    // The simple request did reach the gateway and was refused there; the preflighted one never got past OPTIONS.
    const refused = gateway.records.filter((r) => r.status === 403);
    expect(refused.map((r) => r.method).sort()).toEqual(["OPTIONS", "POST"]);
  });

  it("serves the same page on an origin allowed with --cors", async () => {
    const received = upstream.received.length;
    const { simple, preflighted } = await fetchFrom(allowed.origin);
    expect(preflighted).toMatchObject({ status: 200 });
    const reply = JSON.parse((preflighted as { body: string }).body);
    expect(reply.choices[0].message.content).toBe("fake: from a web page");
    // The page can read the answer to its keyless text/plain request too: the gateway's own 401, not a browser error.
    expect(simple).toMatchObject({ status: 401 });
    expect(JSON.parse((simple as { body: string }).body)).toMatchObject({ error: { type: "authentication_error", code: "invalid_api_key" } });
    expect(upstream.received.length).toBe(received + 1);
    expect(upstream.last().headers.authorization).not.toContain(LOCAL_KEY);
  });
});
