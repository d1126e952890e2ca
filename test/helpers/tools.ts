import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";

/** Real coding tools from npm, installed by .ci/run into a test-only directory (never devDependencies). */
export const TOOLS = process.env.GATEWAY_TEST_TOOLS ?? join(homedir(), ".cache", "gateway-test-tools");

/** Whether a tool is installed; in CI a missing one is a failure, never a silent skip. */
export function hasTool(name: string): boolean {
  if (existsSync(join(TOOLS, "node_modules", ".bin", name))) return true;
  if (process.env.CI) throw new Error(`${name} is not installed in ${TOOLS}; .ci/run installs it`);
  return false;
}

/**
 * Test directories under the home directory, not /tmp: Gemini CLI refuses settings files below a world-writable
 * directory, and so would a careful user.
 */
const base = join(homedir(), ".cache", "gateway-tests");

/** A fresh private directory for one test's state, HOME or work tree. */
export function privateDir(prefix = "run-"): string {
  mkdirSync(base, { recursive: true, mode: 0o700 });
  return mkdtempSync(join(base, prefix));
}

/**
 * What a coding tool needs to run offline against the gateway: a throwaway HOME, the tools on PATH, telemetry,
 * update checks and trust prompts off.
 */
export function toolEnv(home: string): Record<string, string> {
  mkdirSync(join(home, ".codex"), { recursive: true });
  return {
    HOME: home,
    PATH: `${join(TOOLS, "node_modules", ".bin")}:${process.env.PATH}`,
    GEMINI_CLI_TRUST_WORKSPACE: "true",
    GEMINI_TELEMETRY_ENABLED: "false",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CODEX_HOME: join(home, ".codex"),
  };
}

/** The npm package of each tool the tests run, by its command. */
export const TOOL_PACKAGES: Readonly<Record<string, string>> = {
  claude: "@anthropic-ai/claude-code",
  codex: "@openai/codex",
  gemini: "@google/gemini-cli",
  qwen: "@qwen-code/qwen-code",
};

/** The installed version of a tool, read from its package (what ran, whatever the pins say). */
export function toolVersion(command: string): string {
  return (JSON.parse(readFileSync(join(TOOLS, "node_modules", TOOL_PACKAGES[command]!, "package.json"), "utf8")) as { version: string }).version;
}

/** How a tool was tested: natively (an upstream of its own format) or translated (an upstream of another). */
export type ToolRoute = "native" | "translated";

/**
 * A capability the compatibility table has a column for (scripts/tool-table.mjs `FEATURES`): a test that proves one
 * names it, and its outcome fills that column too.
 */
export type ToolFeature = "artifact-schema" | "tool-search" | "catalog" | "websocket";

/**
 * Reports how the current test ends (passed or not) for the compatibility table: one JSON line appended to the file
 * `GATEWAY_TEST_RESULTS` names (.ci/run sets it; nothing is written without it). `upstream` is the format the fake
 * upstream spoke; `feature`, when the test proves one the table has a column for (`ToolFeature`), names it.
 */
export function reportToolRun(command: string, route: ToolRoute, upstream: string, feature?: ToolFeature): void {
  const file = process.env.GATEWAY_TEST_RESULTS;
  if (!file) return;
  const run = { tool: command, package: TOOL_PACKAGES[command], version: toolVersion(command), node: process.version, route, upstream, ...(feature ? { feature } : {}) };
  onTestFinished(({ task }) => appendFileSync(file, `${JSON.stringify({ ...run, test: task.name, passed: task.result?.state === "pass" })}\n`));
}
