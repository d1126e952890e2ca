import Anthropic from "@anthropic-ai/sdk";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import OpenAI from "openai";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, cliEnv, runCli, spawnCli, waitForOutput } from "./helpers/cli.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, tempConfigDir } from "./helpers/gateway.js";
import { rawRequest } from "./helpers/http.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.CI) throw new Error(`the dashboard test must run in CI, but ${CHROMIUM} is missing`);

/** Screenshots for people to look at: test-artifacts/ (kept by CI runs), not committed. */
export const ARTIFACTS = new URL("../test-artifacts/", import.meta.url).pathname;

describe.runIf(hasChromium)("the dashboard in headless Chromium", () => {
  let upstream: FakeUpstream;
  let gateway: ReturnType<typeof spawnCli>;
  let url: string;
  let env: NodeJS.ProcessEnv;
  let context: BrowserContext;
  let profile: string;
  let other: Server;
  const stateDir = mkdtempSync(join(tmpdir(), "gateway-dashboard-"));

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    upstream = await startFakeUpstream();
    // A second upstream (the echo, for local-* models) and a price for one model: claude-fake has none (unknown).
    const config = { upstreams: { local: { url: "echo", models: ["local-*"] } }, prices: { "gpt-fake": { input: 3000, output: 15000 } } };
    env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(config), GATEWAY_STATE_DIR: stateDir, GATEWAY_UPSTREAM: upstream.url, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY });
    gateway = spawnCli(["start", "--port", "0", "--capture", "--quiet"], env);
    url = (await waitForOutput(gateway, /listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    other = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>other</title>"));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    profile = mkdtempSync(join(tmpdir(), "gateway-chromium-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1400, height: 1000 },
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    other?.close();
    gateway?.kill("SIGTERM");
    await upstream?.close();
    rmSync(profile, { recursive: true, force: true });
    rmSync(stateDir, { recursive: true, force: true });
  });

  /** Every request the page makes, to check none leaves the gateway's origin. */
  async function openPage(path: string, colorScheme: "light" | "dark" = "light"): Promise<{ page: Page; requests: string[] }> {
    const page = await context.newPage();
    await page.emulateMedia({ colorScheme });
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    await page.goto(`${url}${path}`);
    return { page, requests };
  }

  it("every data endpoint answers 401 with no data without the key; the page's own files need none", async () => {
    for (const path of ["/ui/api/summary", "/ui/api/live", "/ui/api/requests/req_x"]) {
      const res = await rawRequest(url, { path });
      expect(res.status, path).toBe(401);
      expect(res.headers["x-request-id"]).toMatch(/^req_/);
      expect(JSON.parse(res.body)).toEqual({
        error: { message: "The dashboard's data needs the local key in an Authorization: Bearer header. Open the page with `gateway ui`.", type: "authentication_error", param: null, code: "invalid_api_key" },
      });
    }
    const page = await rawRequest(url, { path: "/ui/" });
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toContain("default-src 'self'");
    expect((await rawRequest(url, { path: "/ui/app.js" })).status).toBe(200);
  });

  it("without the key it asks for one and shows no data", async () => {
    const { page, requests } = await openPage("/ui/");
    await page.locator("#key-input").waitFor();
    expect(await page.locator("#app").isHidden()).toBe(true);
    expect(requests.filter((r) => r.includes("/ui/api/"))).toEqual([]);
    await page.locator("#key-input").fill("gw-wrong");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#key-error").textContent()).toContain("The gateway refused this key.");
    expect(await page.locator("#app").isHidden()).toBe(true);
    // what the screenshot shows: the prompt, its field and the refusal, inside the page
    for (const part of ["h2", "#key-input", "#key-error"]) {
      const box = (await page.locator(`#key-form ${part}`).boundingBox())!;
      expect(box.width, part).toBeGreaterThan(0);
      expect(box.x + box.width, part).toBeLessThanOrEqual(page.viewportSize()!.width);
    }
    expect(await page.locator("#key-form h2").textContent()).toBe("Local key needed");
    await page.screenshot({ path: join(ARTIFACTS, "dashboard-key-prompt.png") });
    await page.close();
  });

  it("on a fresh gateway each chart says it is empty, and the legend's dashes are explained", async () => {
    const { page } = await openPage(`/ui/#key=${LOCAL_KEY}`);
    await page.locator("#app").waitFor();
    const notes = page.locator(".chart-empty");
    expect(await notes.count()).toBe(3);
    for (const note of await notes.all()) {
      expect(await note.isVisible()).toBe(true);
      expect(await note.textContent()).toBe("No requests in this window yet: they appear here as tools send them.");
    }
    expect(await page.locator(".hint").textContent()).toContain('"--" below a chart means nothing is pointed at');
    expect(await page.locator("#window").inputValue()).toBe("auto");
    await page.screenshot({ path: join(ARTIFACTS, "dashboard-fresh.png") });
    await page.close();
  });

  it("shows each SDK request live within a second, keeps the key out of the address bar and talks to no other origin", async () => {
    const { page, requests } = await openPage(`/ui/#key=${LOCAL_KEY}`);
    await page.locator("#app").waitFor();
    expect(page.url()).toBe(`${url}/ui/`);
    expect(await page.evaluate(() => sessionStorage.getItem("gateway-local-key"))).toBe(LOCAL_KEY);
    await expect.poll(() => page.locator("#live").textContent()).toContain("live");

    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: url, apiKey: LOCAL_KEY, maxRetries: 0 });
    const calls: (() => Promise<unknown>)[] = [
      () => openai.chat.completions.create({ model: "gpt-fake", messages: [{ role: "user", content: "dashboard one" }] }),
      async () => {
        const stream = await openai.chat.completions.create({ model: "gpt-fake", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "dashboard two" }] });
        for await (const _chunk of stream) {
          // drain
        }
      },
      () => anthropic.messages.create({ model: "claude-fake", max_tokens: 10, messages: [{ role: "user", content: "dashboard three" }] }),
      async () => {
        const stream = await anthropic.messages.create({ model: "claude-fake", max_tokens: 10, stream: true, messages: [{ role: "user", content: "dashboard four" }] });
        for await (const _event of stream) {
          // drain
        }
      },
    ];
    const rows = page.locator("#requests tbody tr");
    for (const [i, call] of calls.entries()) {
      await call();
      const done = Date.now();
      await expect.poll(() => rows.count(), { timeout: 1_000, interval: 50 }).toBe(i + 1);
      expect(Date.now() - done).toBeLessThan(1_000);
    }
    await expect(rows.first().textContent()).resolves.toContain("claude-fake");
    expect(requests.every((r) => r.startsWith(`${url}/`))).toBe(true);
    await page.close();
  });

  it("its totals match gateway stats --json for the same traffic, and a detail view shows the captured body", async () => {
    const { page } = await openPage(`/ui/#key=${LOCAL_KEY}`);
    await page.locator("#app").waitFor();
    await expect.poll(() => page.locator("#requests tbody tr").count()).toBeGreaterThanOrEqual(4);
    // the request log writes within 100 ms; the page's totals refresh within a second
    await expect.poll(async () => JSON.parse((await runCli(["stats", "--json"], env)).stdout).total.requests, { timeout: 5_000 }).toBe(4);
    const stats = JSON.parse((await runCli(["stats", "--json"], env)).stdout);
    const card = (label: string) => page.locator(`.card[data-label="${label}"] strong`).textContent();
    await expect.poll(() => card("Requests")).toBe(String(stats.total.requests));
    expect(await card("Tokens in")).toBe(String(stats.total.inputTokens));
    expect(await card("Tokens out")).toBe(String(stats.total.outputTokens));
    expect(await card("Errors")).toBe(String(stats.total.errors));
    const modelRows = await page.locator("#by-model tr").allTextContents();
    for (const model of stats.models) expect(modelRows.some((row) => row.startsWith(model.name) && row.includes(String(model.requests)))).toBe(true);

    await page.locator("#requests tbody tr", { hasText: "gpt-fake" }).last().click();
    const detail = page.locator("#detail");
    await detail.waitFor();
    await expect.poll(() => detail.textContent()).toContain('"content": "dashboard one"');
    expect(await detail.textContent()).toContain("[redacted]");
    expect(await detail.textContent()).not.toContain(LOCAL_KEY);
    await page.screenshot({ path: join(ARTIFACTS, "dashboard-detail.png") });
    await page.keyboard.press("Escape");
    expect(await detail.isHidden()).toBe(true);
    await page.close();
  });

  it("the charts of a gateway a few minutes old are drawn second by second over those minutes", async () => {
    const { page } = await openPage(`/ui/#key=${LOCAL_KEY}`);
    await page.locator("#app").waitFor();
    for (const id of ["chart-requests", "chart-tokens", "chart-latency"]) {
      await expect.poll(() => page.locator(`#${id}`).getAttribute("data-step")).toBe("1");
      expect(await page.locator(`#${id} .chart-empty`).isHidden()).toBe(true);
    }
    // the bars of four requests a second apart at most fill a visible part of the chart, not a one-pixel spike
    const bars = await page.locator("#chart-requests canvas").evaluate((canvas: HTMLCanvasElement) => {
      const { data, width, height } = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
      const columns = new Set<number>();
      for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (data[(y * width + x) * 4 + 2]! > 200 && data[(y * width + x) * 4]! < 150) columns.add(x);
      return columns.size;
    });
    expect(bars).toBeGreaterThan(3);
    await page.selectOption("#window", "3600");
    await expect.poll(() => page.locator("#chart-requests").getAttribute("data-step")).toBe("30");
    await page.screenshot({ path: join(ARTIFACTS, "dashboard-charts.png") });
    await page.close();
  });

  it("shows the upstream of each request, filters by it, and totals per upstream beside model and client", async () => {
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    await openai.chat.completions.create({ model: "local-echo", messages: [{ role: "user", content: "to the echo" }] });
    const { page } = await openPage(`/ui/#key=${LOCAL_KEY}`);
    await page.locator("#app").waitFor();
    const rows = page.locator("#requests tbody tr");
    await expect.poll(() => rows.count()).toBe(5);
    const header = await page.locator("#requests thead th").allTextContents();
    expect(header).toContain("Upstream");
    expect(await rows.first().locator("td.upstream").textContent()).toBe("local");
    expect(await rows.last().locator("td.upstream").textContent()).toBe("default");
    await page.selectOption("#f-upstream", "local");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await page.locator("#filtered").textContent()).toBe("1 of 5 requests match the filters.");
    await page.selectOption("#f-upstream", "");
    const upstreams = await page.locator("#by-upstream tr").allTextContents();
    expect(upstreams[0]).toMatch(/^Upstream/);
    expect(upstreams.slice(1).map((row) => row.split(/\d/)[0])).toEqual(["default", "local"]);
    await page.close();
  });

  it("clicking a model or client row filters the table, and clicking it again shows every request", async () => {
    const { page } = await openPage(`/ui/#key=${LOCAL_KEY}`);
    await page.locator("#app").waitFor();
    const rows = page.locator("#requests tbody tr");
    await expect.poll(() => rows.count()).toBe(5);
    await page.locator("#by-model tr", { hasText: "claude-fake" }).click();
    await expect.poll(() => rows.count()).toBe(2);
    expect(await page.locator("#f-model").inputValue()).toBe("claude-fake");
    expect(await page.locator("#by-model tr.active").textContent()).toMatch(/^claude-fake/);
    await page.locator("#by-client tr", { hasText: "OpenAI/JS" }).click();
    await expect.poll(() => rows.count()).toBe(0);
    await page.locator("#by-model tr.active").click();
    await expect.poll(() => rows.count()).toBe(3);
    expect(await page.locator("#f-model").inputValue()).toBe("");
    // the keyboard does the same
    await page.locator("#by-client tr.active").focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => rows.count()).toBe(5);
    await page.close();
  });

  it("prices each request, model, client and upstream as gateway stats does; a model without a price is unknown, never $0", async () => {
    const stats = JSON.parse((await runCli(["stats", "--json"], env)).stdout);
    const { page } = await openPage(`/ui/#key=${LOCAL_KEY}`);
    await page.locator("#app").waitFor();
    await expect.poll(() => page.locator("#requests tbody tr").count()).toBe(5);
    const costOf = (name: string, groups: { name: string; costUsd: number; unpricedRequests: number }[]) => {
      const g = groups.find((group) => group.name === name)!;
      return g.unpricedRequests === 0 ? g.costUsd : g.costUsd === 0 ? "unknown" : g.costUsd;
    };
    expect(costOf("gpt-fake", stats.models)).toBeGreaterThan(0);
    expect(costOf("claude-fake", stats.models)).toBe("unknown");
    const cell = (table: string, row: string) => page.locator(`#${table} tr`, { hasText: row }).locator("td").nth(5).textContent();
    expect(await cell("by-model", "claude-fake")).toBe("unknown");
    expect(await cell("by-model", "gpt-fake")).toMatch(/^\$0\.\d+$/);
    expect(await cell("by-model", "local-echo")).toBe("$0.00");
    expect(await cell("by-client", "Anthropic/JS")).toBe("unknown");
    expect(await cell("by-upstream", "default")).toMatch(/^≥\$0\.\d+$/);
    expect(await page.locator('.card[data-label="Estimated cost"] strong').textContent()).toMatch(/^≥\$0\.\d+$/);
    expect(await page.locator('.card[data-label="Estimated cost"]').getAttribute("title")).toContain("2 requests for a model without a known price");
    const costs = await page.locator("#requests tbody td.cost").allTextContents();
    expect(costs.filter((c) => c === "unknown")).toHaveLength(2);
    expect(costs).not.toContain("$0.00".replace("0.00", "0")); // never a bare $0
    expect(costs.filter((c) => /^\$0\.\d+$/.test(c) && c !== "$0.00")).toHaveLength(2);
    // the detail says the same
    await page.locator("#requests tbody tr", { hasText: "claude-fake" }).first().click();
    await expect.poll(() => page.locator("#detail section", { hasText: /^Record/ }).textContent()).toContain("Estimated costunknown");
    await page.close();
  });

  it("at 1400 px every column is whole, the outcome of a reply cut short included; at 420 px time, model, status and duration stay", async () => {
    upstream.behaviour.dieAfterChunks = 2;
    const anthropic = new Anthropic({ baseURL: url, apiKey: LOCAL_KEY, maxRetries: 0 });
    await expect(
      (async () => {
        const stream = await anthropic.messages.create({ model: "claude-fake", max_tokens: 10, stream: true, messages: [{ role: "user", content: "cut me short please" }] });
        for await (const _event of stream) {
          // drain
        }
      })(),
    ).rejects.toThrow();
    upstream.behaviour.dieAfterChunks = undefined;
    const { page } = await openPage(`/ui/#key=${LOCAL_KEY}`);
    await page.locator("#app").waitFor();
    const rows = page.locator("#requests tbody tr");
    await expect.poll(() => rows.count()).toBe(6);
    expect(await rows.first().locator("td.outcome").textContent()).toBe("upstream broke mid-reply");
    const overflow = () => page.locator("#requests").evaluate((table) => ({ table: table.scrollWidth, box: table.parentElement!.clientWidth }));
    const at1400 = await overflow();
    expect(at1400.table).toBeLessThanOrEqual(at1400.box);
    const outcome = await rows.first().locator("td.outcome").evaluate((td) => ({ right: td.getBoundingClientRect().right, box: td.closest(".scroll")!.getBoundingClientRect().right }));
    expect(outcome.right).toBeLessThanOrEqual(outcome.box);
    await page.screenshot({ path: join(ARTIFACTS, "dashboard-1400.png"), fullPage: true });

    await page.setViewportSize({ width: 900, height: 1000 });
    // The charts take their new width from a ResizeObserver, a frame after the viewport changed: wait for it.
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(900);
    const at900 = await overflow();
    expect(at900.table).toBeLessThanOrEqual(at900.box);
    expect(await rows.first().locator("td.outcome").isVisible()).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, "dashboard-900.png"), fullPage: true });

    await page.setViewportSize({ width: 420, height: 900 });
    const visible = await page.locator("#requests thead th").evaluateAll((ths) => ths.filter((th) => (th as HTMLElement).offsetParent !== null).map((th) => th.textContent));
    expect(visible).toEqual(["Time", "Model", "Status", "Duration"]);
    const at420 = await overflow();
    expect(at420.table).toBeLessThanOrEqual(at420.box);
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
    await page.screenshot({ path: join(ARTIFACTS, "dashboard-420.png"), fullPage: true });
    await page.close();
  });

  it.each([1400, 900, 420])("at %i px a stream's detail shows the assembled reply first, events on demand, the record by human names, and copies the request as curl", async (width) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: url });
    const { page } = await openPage(`/ui/#key=${LOCAL_KEY}`);
    await page.setViewportSize({ width, height: 900 });
    await page.locator("#app").waitFor();
    // the newest messages stream that completed ("dashboard four"; a later one was cut short)
    await page.locator("#requests tbody tr", { hasText: "claude-fake" }).filter({ hasText: "complete" }).first().click();
    const detail = page.locator("#detail");
    const reply = detail.locator(".reply-text").first();
    await expect.poll(() => reply.textContent()).toBe("fake: dashboard four");
    // the reply comes before the events, which stay closed until asked for
    const events = detail.locator("details", { hasText: /^Events \(\d+\)/ });
    expect(await events.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await detail.locator(".events li").first().isVisible()).toBe(false);
    expect(await detail.locator(".fields", { hasText: "Stop reason" }).textContent()).toContain("end_turn");
    const fields = await detail.locator("section", { hasText: /^Record/ }).locator("th").allTextContents();
    expect(fields).toEqual(expect.arrayContaining(["Request id", "Client", "Duration", "Time to first byte", "Tokens in", "Tokens out"]));
    expect(fields).not.toContain("durationMs");
    // bodies are shown whole: no box of their own that scrolls
    const body = detail.locator("pre.body").last();
    expect(await body.evaluate((pre) => pre.scrollHeight <= pre.clientHeight + 1)).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, `dashboard-stream-detail-${width}.png`) });
    await events.locator("summary").click();
    await expect.poll(() => detail.locator(".events li").count()).toBeGreaterThan(4);
    expect(await detail.locator(".events .name").allTextContents()).toEqual(expect.arrayContaining(["message_start", "content_block_delta", "message_stop"]));

    await detail.getByRole("button", { name: "Copy as curl" }).click();
    await expect.poll(() => detail.locator(".copy-status").textContent()).toContain("Copied");
    const command = await page.evaluate(() => navigator.clipboard.readText());
    expect(command).toMatch(/^curl -sS -X POST 'http:\/\/127\.0\.0\.1:\d+\/v1\/messages'/);
    expect(command).toContain(`-H "authorization: Bearer $ANTHROPIC_API_KEY"`);
    expect(command).toContain("dashboard four");
    expect(command).not.toContain(LOCAL_KEY);
    expect(await detail.textContent()).not.toContain(LOCAL_KEY);
    await page.close();
  });

  it.each(["light", "dark"] as const)("renders in %s mode, its text readable on its panels (screenshot saved for a person to look at)", async (scheme) => {
    const { page } = await openPage(`/ui/#key=${LOCAL_KEY}`, scheme);
    await page.locator("#app").waitFor();
    await expect.poll(() => page.locator("#requests tbody tr").count()).toBeGreaterThanOrEqual(4);
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe(scheme === "dark" ? "rgb(15, 17, 21)" : "rgb(246, 247, 249)");
    // figures, labels, headings and cells against what is behind them: at least WCAG AA's 4.5:1 for text this small
    const contrasts = await page.locator(".card strong, .card span, #app h2, #requests th, #requests td.model").evaluateAll((all) => {
      const rgb = (color: string) => color.match(/[\d.]+/g)!.map(Number);
      const luminance = (color: string) => {
        const [r, g, b] = rgb(color).map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const behind = (e: Element | null): string => {
        for (; e; e = e.parentElement) {
          const color = getComputedStyle(e).backgroundColor;
          if (rgb(color)[3] !== 0) return color;
        }
        return "rgb(255, 255, 255)";
      };
      return all.map((e) => {
        const [a, b] = [luminance(getComputedStyle(e).color), luminance(behind(e))].sort((x, y) => y - x);
        return { text: e.textContent, ratio: (a! + 0.05) / (b! + 0.05) };
      });
    });
    expect(contrasts.length).toBeGreaterThan(10);
    for (const { text, ratio } of contrasts) expect(ratio, `"${text}" in ${scheme} mode`).toBeGreaterThanOrEqual(4.5);
    await page.screenshot({ path: join(ARTIFACTS, `dashboard-${scheme}.png`), fullPage: true });
    await page.close();
  });

  it("a page on another local origin cannot read the data, even with the key", async () => {
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
    const outcome = await page.evaluate(
      async ([target, key]) => {
        try {
          const res = await fetch(`${target}/ui/api/summary`, { headers: { authorization: `Bearer ${key}` } });
          return `read ${res.status}: ${await res.text()}`;
        } catch (error) {
          return String(error);
        }
      },
      [url, LOCAL_KEY],
    );
    expect(outcome).toBe("TypeError: Failed to fetch");
    await page.close();
  });

  it("gateway logs --show prints a captured exchange from the running gateway", async () => {
    const logged = (await runCli(["logs", "--json", "-n", "20"], env)).stdout.trim().split("\n").map((line) => JSON.parse(line));
    const id = logged.find((r) => r.path === "/v1/chat/completions").requestId as string;
    const shown = await runCli(["logs", "--show", id], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^POST \/v1\/chat\/completions gpt-fake 200 /);
    expect(shown.stdout).toContain("> authorization: [redacted]");
    expect(shown.stdout).toContain('"content": "dashboard one"');
    expect(shown.stdout).toContain("< 200");
    expect(shown.stdout).not.toContain(LOCAL_KEY);
  });

  it("docs/dashboard.md's copy-as-curl block runs as written against the running gateway", async () => {
    const readme = readFileSync(new URL("../docs/dashboard.md", import.meta.url), "utf8");
    const block = /\*\*Copy as curl\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    // `gateway` as npm link installs it; the block's port is the default one, this gateway's is picked at start
    const script = `gateway() { "${process.execPath}" "${BIN}" "$@"; }\n${block.replaceAll("127.0.0.1:8484", new URL(url).host)}`;
    const { stdout } = await promisify(execFile)("sh", ["-c", script], { env });
    expect(JSON.parse(stdout)).toMatchObject({ type: "message", role: "assistant", model: "claude-sonnet-4-5" });
  });

  it("gateway ui --no-open prints the running gateway's page with the key in its fragment", async () => {
    const result = await runCli(["ui", "--no-open"], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${url}/ui/#key=${LOCAL_KEY}\n`);
  });
});
