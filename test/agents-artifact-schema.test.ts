import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startPlayingUpstream } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import { runCli, runProcess } from "./helpers/cli.js";
import { refusalOf, STRICT_KINDS } from "./helpers/strict/index.js";
import { openaiRefusedPattern } from "./helpers/strict/openai.js";
import { hasTool, privateDir, reportToolRun, toolVersion } from "./helpers/tools.js";

/**
 * SPEC 12, Tool schemas a chat upstream refuses, with the real Claude Code pointed at the gateway by `gateway env`:
 * from 2.1.265 it sends an `Artifact` tool whose patterns OpenAI's validator refuses, on every turn. Behind a base URL
 * of its own the tool is on only when its feature flag is (`tengu_cobalt_plinth`, from the flags it cached in
 * `.claude.json`) and `CLAUDE_CODE_ARTIFACT=1`, and its flags are read only with telemetry and non-essential traffic
 * on (2.1.332); the test sets all of that, as a Claude Code that has seen the flag has it (the machine has no
 * internet: those calls fail quietly).
 */

const setUp = agentRuns();
const hasArtifact = () => toolVersion("claude").localeCompare("2.1.265", undefined, { numeric: true }) >= 0;

describe.skipIf(!hasTool("claude") || !hasArtifact())("Claude Code's Artifact tool on a translated route to OpenAI (SPEC 12)", () => {
  it("a turn with the Artifact tool reaches an OpenAI upstream that refuses its patterns: 200, the patterns in the descriptions", async () => {
    reportToolRun("claude", "translated", "chat", "artifact-schema");
    const upstream = await startPlayingUpstream(() => ({ move: { kind: "text", text: "Hello from the model." } }), { refuse: (request) => refusalOf(STRICT_KINDS.openai, request) });
    const config = privateDir("claude-config-");
    writeFileSync(join(config, ".claude.json"), JSON.stringify({ cachedGrowthBookFeatures: { tengu_cobalt_plinth: true }, hasCompletedOnboarding: true }));
    const env = { CLAUDE_CODE_ARTIFACT: "1", CLAUDE_CONFIG_DIR: config, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: undefined, DISABLE_TELEMETRY: undefined };
    const { env: cli, work } = setUp(upstream, "chat", env, { upstreams: { local: { kind: "openai", url: upstream.url, formats: ["chat"], key: "none" } } });
    expect((await runCli(["start", "--detach"], cli)).code).toBe(0);
    const vars = JSON.parse((await runCli(["env", "--json"], cli)).stdout) as Record<string, string>;
    const result = await runProcess("claude", ["-p", "Say hello.", "--model", "claude-sonnet-4-6"], { env: { ...cli, ...vars }, cwd: work, timeoutMs: 120_000 });
    expect(result.code, `${result.stdout}\n${result.stderr}\n${JSON.stringify(upstream.received.map((r) => [r.path, r.body?.model]))}`).toBe(0);
    expect(result.stdout).toContain("Hello from the model.");
    const main = upstream.received.find((request) => (request.body?.tools as { function: { name: string } }[] | undefined)?.some((tool) => tool.function.name === "Artifact"));
    expect(main, `${toolVersion("claude")} sent no Artifact tool`).toBeDefined();
    const artifact = (main!.body!.tools as { function: { name: string; parameters: { properties: Record<string, { description?: string }> } } }[]).find((tool) => tool.function.name === "Artifact")!;
    expect(openaiRefusedPattern(artifact.function.parameters)).toBeUndefined();
    expect(artifact.function.parameters.properties.doc_id?.description).toMatch(/\(pattern: \^\(\?!/);
  }, 150_000);
});
