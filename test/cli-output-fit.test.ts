import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import type { RequestRecord } from "../src/request-log/record.js";
import { BIN, cliEnv, recordOutput, runCli } from "./helpers/cli.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { writeRequestLog } from "./helpers/request-records.js";
import { envPrefix, hasTmux, openTerminal, TMUX_SOCKET } from "./helpers/terminal.js";

/**
 * `gateway logs` and `gateway stats` on a real terminal (tmux) at 80 and 160 columns, from a request log written
 * here: every kind of row the tables must show (a Gemini stream cut short, a translated request, a fallback, a
 * refused request, a priced one).
 */
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();
const base = { family: "chat", outcome: "complete", inputTokens: undefined, outputTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined } as const;
const RECORDS: RequestRecord[] = [
  { ...base, time: ago(60), requestId: "req_1", method: "POST", path: "/v1/messages", family: "messages", model: "claude-sonnet-4-5", upstream: "default", stream: true, status: 200, durationMs: 2310.456, ttfbMs: 412.34, inputTokens: 1000, outputTokens: 100, cacheReadTokens: 2000, userAgent: "claude-cli/2.1.197 (external, cli)" },
  { ...base, time: ago(50), requestId: "req_2", method: "POST", path: "/gemini/v1beta/models/gemini-2.5-pro:streamGenerateContent", family: "gemini", model: "gemini-2.5-pro", upstream: "google", status: 200, durationMs: 5310.4, ttfbMs: 812.3, inputTokens: 10000, outputTokens: 1000, userAgent: "GeminiCLI/0.61.0 (linux; x64)", outcome: "upstream_error" },
  { ...base, time: ago(40), requestId: "req_3", method: "POST", path: "/v1/messages", family: "messages", model: "qwen3-coder:30b", upstream: "ollama", translated: "messages -> chat", stream: true, status: 200, durationMs: 9310.4, ttfbMs: 1812.3, inputTokens: 2840, outputTokens: 315, userAgent: "claude-cli/2.1.197" },
  { ...base, time: ago(30), requestId: "req_4", method: "POST", path: "/v1/responses", model: "gpt-5-codex", upstream: "default", tried: [{ upstream: "openrouter", failure: "upstream 503", durationMs: 120 }], status: 502, durationMs: 310.4, ttfbMs: 10.3, userAgent: "codex_exec/0.169.0", outcome: "local_error", errorCode: "upstream_error" },
  { ...base, time: ago(20), requestId: "req_5", method: "POST", path: "/v1/messages", family: "messages", model: undefined, status: 401, durationMs: 0.4, ttfbMs: 0.3, userAgent: "curl/8.5.0", outcome: "local_error", errorCode: "invalid_api_key" },
  { ...base, time: ago(10), requestId: "req_6", method: "POST", path: "/v1/chat/completions", model: "gpt-4o", upstream: "default", status: 200, durationMs: 1200.06, ttfbMs: 1199.9, inputTokens: 1_000_000, outputTokens: 0, userAgent: "OpenAI/JS 6.9.1" },
];

/** A state directory holding `RECORDS` as requests.jsonl, and a config whose default upstream is a real one (echo costs nothing). */
function setUp() {
  const stateDir = mkdtempSync(join(tmpdir(), "gateway-fit-"));
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  writeRequestLog(stateDir, RECORDS);
  return cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ upstream: "https://gateway.example.com" }), GATEWAY_STATE_DIR: stateDir, NO_COLOR: undefined, TERM: "xterm-256color" });
}

/** The screen of `gateway <args>` run in a `columns`-wide terminal: wrapped lines joined, so a line that wrapped is longer than `columns`. */
async function screen(args: string, columns: number, colors = false): Promise<string> {
  const env = setUp();
  const terminal = openTerminal(`gateway-fit-${columns}`, `${envPrefix(env)} ${process.execPath} ${BIN} ${args}`, { columns, rows: 60 });
  try {
    await terminal.waitFor(/EXITED \d+/);
    const text = execFileSync("tmux", ["-S", TMUX_SOCKET, "capture-pane", "-p", "-J", ...(colors ? ["-e"] : []), "-t", `gateway-fit-${columns}-${process.pid}`]).toString();
    recordOutput([`${args} (terminal, ${columns} columns)`], text, "");
    return text.slice(0, text.indexOf("EXITED")).trimEnd();
  } finally {
    terminal.close();
  }
}

const widest = (text: string) => Math.max(...text.split("\n").map((line) => stringWidth(line)));
const lineWith = (text: string, needle: string) => text.split("\n").find((line) => line.includes(needle)) ?? "";

describe.skipIf(!hasTmux)("gateway logs fits the terminal", () => {
  it("at 160 columns: every column, the whole Gemini method, the stream marker, the reason behind 200!, the upstream", async () => {
    const out = await screen("logs", 160);
    expect(widest(out)).toBeLessThanOrEqual(160);
    expect(out.split("\n")[0]).toMatch(/^TIME\s+CLIENT\s+REQUEST\s+MODEL\s+UPSTREAM\s+STATUS\s+DURATION\s+TTFB\s+TOKENS\s+NOTE$/);
    expect(out.split("\n")).toHaveLength(RECORDS.length + 1);
    expect(lineWith(out, "gemini-cli")).toMatch(/^\d\d:\d\d:\d\d  gemini-cli\s+POST …\S*:streamGenerateContent ~\s+gemini-2\.5-pro\s+google\s+200!\s+5310ms\s+812ms\s+10000\/1000\s+upstream broke mid-reply$/);
    expect(lineWith(out, "claude-sonnet")).toMatch(/POST \/v1\/messages ~\s+claude-sonnet-4-5\s+default\s+200\s+2310ms/);
    expect(lineWith(out, "qwen3")).toMatch(/ollama\s+200\s+9310ms\s+1812ms\s+2840\/315\s+messages -> chat$/);
    // a note longer than its share of 160 columns is cut at the end, its cause first
    expect(lineWith(out, "gpt-5-codex")).toMatch(/502\s+310ms\s+10ms\s+-\s+upstream unreachable; after .*…$/);
    expect(lineWith(out, "curl")).toMatch(/POST \/v1\/messages\s+-\s+-\s+401\s+0ms\s+0ms\s+-\s+wrong local key$/);
  });

  it("at 80 columns: narrower columns, then fewer (the whole Gemini method stays), and a note on a line of its own under its row", async () => {
    const out = await screen("logs", 80);
    expect(widest(out)).toBeLessThanOrEqual(80);
    const lines = out.split("\n");
    expect(lines[0]).toMatch(/^TIME\s+REQUEST\s+MODEL\s+STATUS\s+DURATION$/);
    const gemini = lines.findIndex((line) => line.includes("streamGenerateContent"));
    expect(lines[gemini]).toMatch(/^\d\d:\d\d:\d\d  POST …\S*:streamGenerateContent ~\s+gemini-2\.5-pro\s+200!\s+5310ms$/);
    expect(lines[gemini + 1]).toBe("          ↳ upstream broke mid-reply");
    expect(lineWith(out, "/v1/chat/completions")).toMatch(/^\d\d:\d\d:\d\d  POST \/v1\/chat\/completions\s+gpt-4o\s+200\s+1200ms$/);
    expect(lineWith(out, "↳ upstream unreachable")).toBe("          ↳ upstream unreachable; after openrouter: upstream 503");
  });

  it("colours 4xx and 5xx statuses and replies cut short on a terminal, and nothing when piped", async () => {
    const out = await screen("logs", 160, true);
    const red = "\x1b[31m";
    const yellow = "\x1b[33m";
    expect(lineWith(out, "gemini-cli")).toContain(`${red}200!`);
    expect(lineWith(out, "gpt-5-codex")).toContain(`${red}502`);
    expect(lineWith(out, "curl")).toContain(`${yellow}401`);
    expect(lineWith(out, "gpt-4o")).not.toContain(red);
    const piped = await runCli(["logs"], setUp());
    expect(piped.stdout).not.toContain("\x1b[");
  });
});

describe.skipIf(!hasTmux)("gateway stats fits the terminal", () => {
  it("at 160 columns: every column, a cost per model, client and upstream, and the estimate in total", async () => {
    const out = await screen("stats", 160);
    expect(widest(out)).toBeLessThanOrEqual(160);
    const lines = out.split("\n");
    expect(lines[0]).toMatch(/^6 requests since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, 3 errors$/);
    expect(lines[1]).toBe("Tokens: 1,013,840 in, 1,415 out (cache: 2,000 read, 0 written)");
    expect(lines[2]).toBe("Estimated cost: ≥$2.53, 1 request at an unknown price not included");
    expect(out).toMatch(/\nMODEL\s+REQUESTS\s+ERRORS\s+TOKENS IN\s+TOKENS OUT\s+CACHE R\/W\s+COST\s+P50\s+P95\s+TTFB P50\s+TTFB P95\n/);
    expect(lineWith(out, "gpt-4o ")).toMatch(/^gpt-4o\s+1\s+0\s+1,000,000\s+0\s+0\/0\s+\$2\.50\s+1200ms/);
    expect(lineWith(out, "qwen3-coder")).toMatch(/\s+unknown\s+/);
    expect(out).toMatch(/\nUPSTREAM\s+REQUESTS/);
    expect(lineWith(out, "ollama")).toMatch(/^ollama\s+1\s+0\s+2,840\s+315\s+0\/0\s+unknown/);
    expect(lineWith(out, "claude-code")).toMatch(/^claude-code\s+2\s+0\s+3,840\s+415\s+2,000\/0\s+≥\$0\.0051/);
  });

  it("at 80 columns: the time-to-first-byte and cache columns go first, the cost stays", async () => {
    const out = await screen("stats", 80);
    expect(widest(out)).toBeLessThanOrEqual(80);
    expect(out).toMatch(/\nMODEL\s+REQUESTS\s+ERRORS\s+TOKENS IN\s+TOKENS OUT\s+COST\s+P50\s+P95\n/);
    expect(lineWith(out, "gpt-4o ")).toMatch(/^gpt-4o\s+1\s+0\s+1,000,000\s+0\s+\$2\.50\s+1200ms\s+1200ms$/);
    expect(lineWith(out, "claude-sonnet")).toMatch(/^claude-sonnet…\s+1/);
  });

  it("--json carries the upstreams and the costs: a total, per group, and how many requests had no known price", async () => {
    const result = await runCli(["stats", "--json"], setUp());
    const stats = JSON.parse(result.stdout);
    expect(stats.total).toMatchObject({ requests: 6, costUsd: 2.5276, unpricedRequests: 1 });
    expect(stats.upstreams.map((g: { name: string; requests: number; costUsd: number }) => [g.name, g.requests, g.costUsd])).toEqual([
      ["default", 3, 2.5051],
      ["-", 1, 0],
      ["google", 1, 0.0225],
      ["ollama", 1, 0],
    ]);
  });
});
