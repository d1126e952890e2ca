import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { startPlayingUpstream } from "./agent-upstream.js";
import { cliEnv, runCli } from "./cli.js";
import { freePort } from "./free-port.js";
import { tempConfigDir } from "./gateway.js";
import { privateDir, toolEnv } from "./tools.js";

type Upstream = Awaited<ReturnType<typeof startPlayingUpstream>>;

/** One real tool's run through `gateway run` against a fake upstream: its directories and how to run it. */
export interface AgentRun {
  home: string;
  work: string;
  state: string;
  env: NodeJS.ProcessEnv;
  /** `gateway run <args>` in the work tree. */
  run: (args: string[], timeoutMs?: number) => ReturnType<typeof runCli>;
  /** The gateway's own log: each request line says what was translated into what. */
  log: () => string;
}

/**
 * Hooks for a file of real-tool tests (call it at the top of the file): a port for its gateways, and after each test
 * the gateway stopped and the fake upstream closed; the returned `setUp` gives a test a gateway config routing every
 * model to `upstream`, which speaks only `format` (plus `extraConfig`'s fields), and a fresh HOME, work tree and
 * state directory; `extraEnv` adds to (or, undefined, removes from) the tool's environment.
 */
export function agentRuns() {
  let port: number;
  const dirs: string[] = [];
  const open: { env: NodeJS.ProcessEnv; upstream: Upstream }[] = [];
  beforeAll(async () => {
    port = await freePort();
  });
  afterEach(async () => {
    for (const { env, upstream } of open.splice(0)) {
      await runCli(["stop"], env);
      await upstream.close();
    }
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return function setUp(
    upstream: Upstream,
    format: "chat" | "messages" | "responses" | "gemini",
    extraEnv: Record<string, string | undefined> = {},
    extraConfig: Record<string, unknown> = {},
  ): AgentRun {
    const [home, work, state] = [privateDir(), privateDir("work-"), privateDir("state-")];
    dirs.push(home, work, state);
    const config = { upstream: "local", upstreams: { local: { url: upstream.url, formats: [format], key: "none" } }, ...extraConfig };
    const env = cliEnv({ ...toolEnv(home), GATEWAY_CONFIG_DIR: tempConfigDir(config), GATEWAY_STATE_DIR: state, GATEWAY_PORT: String(port), ...extraEnv });
    open.push({ env, upstream });
    return {
      home,
      work,
      state,
      env,
      run: (args, timeoutMs = 120_000) => runCli(["run", ...args], env, undefined, timeoutMs, work),
      log: () => readFileSync(join(state, `gateway-${port}.log`), "utf8"),
    };
  };
}
