import { createServer } from "node:net";
import type { Command } from "commander";
import { ECHO_UPSTREAM, readEnvSecrets } from "../../config/index.js";
import { FailedError } from "../../errors/index.js";
import { checkKey } from "../../upstream/check-key.js";
import { createContext, describeKeySource, keychainAccount, portFlag, type CommandContext } from "../context.js";
import { findGateway } from "../../running/find-gateway.js";
import { log } from "../terminal.js";

interface Check {
  /** `undefined`: the check does not apply now, and the label says why. */
  ok: boolean | undefined;
  label: string;
  /** What to do when it failed. */
  fix?: string;
}

function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

function checkNode(): Check {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  const ok = major > 20 || (major === 20 && minor >= 19);
  return { ok, label: `Node.js ${process.versions.node}`, fix: "Install Node.js 20.19 or newer." };
}

async function checkKeychain(ctx: CommandContext): Promise<Check> {
  try {
    await ctx.store.get("gateway-doctor-probe");
    return { ok: true, label: "OS keychain reachable" };
  } catch (error) {
    const why =
      ctx.config.upstream === ECHO_UPSTREAM ? "the upstream is echo" : readEnvSecrets(ctx.env).upstreamKey !== undefined ? "GATEWAY_API_KEY is set" : undefined;
    return {
      ok: why ? undefined : false,
      label: `OS keychain: ${(error as Error).message}${why ? ` (not needed now: ${why})` : ""}`,
      fix: "Start a Secret Service (gnome-keyring), or set GATEWAY_API_KEY.",
    };
  }
}

async function checkUpstream(ctx: CommandContext): Promise<Check[]> {
  if (ctx.config.upstream === ECHO_UPSTREAM) return [{ ok: undefined, label: "Upstream: echo (built in, offline): no reachability or key to check" }];
  const key = readEnvSecrets(ctx.env).upstreamKey ?? (await ctx.store.get(keychainAccount(ctx.config)).catch(() => undefined));
  try {
    const result = await checkKey(ctx.config, key ?? "");
    const valid = result.status >= 200 && result.status < 300;
    return [
      { ok: true, label: `Upstream ${keychainAccount(ctx.config)} reachable (HTTP ${result.status})` },
      { ok: valid, label: valid ? "Upstream accepts the key" : `Upstream refused the key (HTTP ${result.status})`, fix: "Run `gateway login` with a valid key." },
    ];
  } catch (error) {
    return [{ ok: false, label: `Upstream ${keychainAccount(ctx.config)} unreachable: ${(error as Error).message}`, fix: "Check the URL (gateway login --upstream <url>), your network and HTTPS_PROXY." }];
  }
}

async function checkPort(ctx: CommandContext, flag: number | undefined): Promise<Check> {
  const { port, health } = await findGateway(ctx.config, flag);
  if (health) return { ok: true, label: `Port ${port}: a gateway (${health.version}) is running there` };
  if (await portFree(ctx.config.host, port)) return { ok: true, label: `Port ${port} is free` };
  return { ok: false, label: `Port ${port} is used by another program`, fix: `Free it, or set another port: gateway start --port ${port + 1} (or "port" in config.json).` };
}

export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description("check Node, the keychain, the stored key, the upstream and the port")
    .option("-p, --port <n>", "check the gateway (or the free port) on this port")
    .addHelpText("after", "\nExample:\n  gateway doctor")
    .action(async (options: { port?: string }) => {
      const ctx = createContext();
      const key = await describeKeySource(ctx);
      const checks: Check[] = [
        checkNode(),
        await checkKeychain(ctx),
        { ok: key.ok, label: `Upstream key: ${key.text}`, fix: "Run `gateway login`, or set GATEWAY_API_KEY." },
        ...(await checkUpstream(ctx)),
        await checkPort(ctx, portFlag(options.port)),
      ];
      for (const check of checks) {
        const mark = check.ok === undefined ? "–" : check.ok ? "✔" : "✖";
        log.log(`${mark} ${check.label}${check.ok !== false || !check.fix ? "" : `\n    fix: ${check.fix}`}`);
      }
      const failed = checks.filter((check) => check.ok === false).length;
      if (failed > 0) throw new FailedError(`${failed} check${failed === 1 ? "" : "s"} failed.`, { hint: "Apply the fixes above and run `gateway doctor` again." });
    });
}
