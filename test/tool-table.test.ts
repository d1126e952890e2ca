import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runProcess } from "./helpers/cli.js";
import { privateDir } from "./helpers/tools.js";

/**
 * The compatibility table (scripts/tool-table.mjs over scripts/compat-table.mjs, which `npm run canary` prints too):
 * native and translated runs, and a column per capability a tool test proves (issue 50's Artifact schema, tool
 * search, catalog and WebSocket), filled from the results the tool tests wrote.
 */

const SCRIPT = fileURLToPath(new URL("../scripts/tool-table.mjs", import.meta.url));
const run = (tool: string, version: string, route: string, upstream: string, passed: boolean, feature?: string) =>
  JSON.stringify({ tool, package: "p", version, node: "v24.21.0", route, upstream, test: "t", passed, ...(feature ? { feature } : {}) });

describe("the compatibility table", () => {
  it("has a column per capability, each filled from the tests that name it, `not run` where none did", async () => {
    const file = join(privateDir("table-"), "results.jsonl");
    writeFileSync(
      file,
      [
        run("claude", "2.1.332", "native", "messages", true),
        run("claude", "2.1.332", "translated", "chat", true, "tool-search"),
        run("claude", "2.1.332", "translated", "chat", false, "artifact-schema"),
        run("codex", "0.171.0", "translated", "chat", true, "catalog"),
        run("codex", "0.171.0", "native", "responses", true, "websocket"),
      ].join("\n"),
    );
    const result = await runProcess(process.execPath, [SCRIPT, file], { env: { PATH: process.env.PATH } });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toBe("| tool | version | Node | native | translated | Artifact schema | tool search | catalog | WebSocket |");
    expect(lines[2]).toBe("| Claude Code | 2.1.332 | 24.21.0 | ✓ 1 test (messages) | ✗ 1 of 2 tests failed (chat) | ✗ 1 of 1 test failed (chat) | ✓ 1 test (chat) | not run | not run |");
    expect(lines[3]).toBe("| Codex | 0.171.0 | 24.21.0 | ✓ 1 test (responses) | ✓ 1 test (chat) | not run | not run | ✓ 1 test (chat) | ✓ 1 test (responses) |");
  });
});
