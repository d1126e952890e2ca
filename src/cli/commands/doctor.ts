import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { ECHO_UPSTREAM, keySpecName, keySpecs, type UpstreamConfig } from "../../config/index.js";
import { FailedError } from "../../errors/index.js";
import { portFree, suggestPort } from "../../running/free-port.js";
import { checkKey, type KeyCheck } from "../../upstream/check-key.js";
import { createContext, portFlag, type CommandContext } from "../context.js";
import { chooseGateway, notYours } from "../running-gateway.js";
import { baseUrlNotices, CHECK_BASE_URL } from "../base-url-notice.js";
import { isLoopbackHost } from "../../config/loopback.js";
import { log } from "../terminal.js";
import { describeKey, keyFix, keychainAccount, sourcesOf } from "../upstream-keys.js";

interface Check {
  /** `undefined`: the check does not apply now, and the label says why. */
  ok: boolean | undefined;
  label: string;
  /** What to do when it failed. */
  fix?: string;
}

function checkNode(): Check {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  const ok = major > 20 || (major === 20 && minor >= 19);
  return { ok, label: `Node.js ${process.versions.node}`, fix: "Install Node.js 20.19 or newer." };
}

/** Why no upstream needs the keychain right now, or undefined when one does. */
function keychainNotNeeded(ctx: CommandContext): string | undefined {
  const sources = ctx.config.upstreams.flatMap((upstream) => sourcesOf(ctx, upstream).map((source) => source.kind));
  if (sources.includes("keychain")) return undefined;
  return ctx.config.upstreams.every((upstream) => upstream.url === ECHO_UPSTREAM) ? "the upstream is echo" : ctx.env.GATEWAY_API_KEY ? "GATEWAY_API_KEY is set" : "no upstream keeps its key there";
}

/** The account of the throwaway entry `doctor` writes and deletes; never an upstream's origin. */
const PROBE_ACCOUNT = "gateway-doctor-probe";

/**
 * Writes a throwaway entry and deletes it: a keychain that answers reads may still refuse writes (gnome-keyring
 * started without a password has no collection to store anything in), and `gateway login` needs to write.
 */
async function checkKeychain(ctx: CommandContext): Promise<Check> {
  try {
    await ctx.store.set(PROBE_ACCOUNT, randomBytes(16).toString("hex"));
    await ctx.store.delete(PROBE_ACCOUNT);
    return { ok: true, label: "OS keychain: an entry can be written and deleted" };
  } catch (error) {
    const why = keychainNotNeeded(ctx);
    return {
      ok: why ? undefined : false,
      label: `OS keychain: ${(error as Error).message.replace(/\.$/, "")}${why ? ` (not needed now: ${why})` : ""}`,
      fix: (error as { hint?: string }).hint ?? "Start a Secret Service (gnome-keyring), or set GATEWAY_API_KEY.",
    };
  }
}

/** What the upstream's model list said of one key (or of no key, for `key: "none"`). */
function verdictOf(ctx: CommandContext, upstream: UpstreamConfig, name: string, keyName: string, check: KeyCheck, keyless: boolean): Check {
  const { status, path, refused } = check;
  const valid = status >= 200 && status < 300;
  if (!valid && !refused) {
    // A model list that is not there (404) or an upstream in trouble (5xx) says nothing about the key.
    return {
      ok: false,
      label: status === 404 ? `Upstream${name} has no model list at ${path} (HTTP 404), so the key was not checked` : `Upstream${name} answered HTTP ${status} to ${path}, so the key was not checked`,
      fix: status === 404 ? `Check the upstream URL in config.json: ${CHECK_BASE_URL}.` : "Try again later; if it lasts, the upstream is in trouble (its status page says).",
    };
  }
  if (keyless) {
    return { ok: valid, label: valid ? `Upstream${name} answers without a key` : `Upstream${name} refused the request without a key (HTTP ${status})`, fix: 'Give it a key in config.json ("key": "keychain" or "env:<VAR>").' };
  }
  const spec = keySpecs(upstream.key).find((candidate) => keySpecName(candidate) === keyName);
  return { ok: valid, label: valid ? `Upstream${name} accepts the key${keyName}` : `Upstream${name} refused the key${keyName} (HTTP ${status})`, fix: keyFix(ctx, upstream, true, spec ? [spec] : undefined) };
}

/**
 * The checks of one upstream: its keys (each of several on a line of its own, SPEC 11), whether it answers, whether
 * it takes each key. One cause is one ✖: a key the keychain cannot give (its own check failed above) is not a second
 * failure, and a key check with no key to send is skipped. The default's words stay short when it is the only one.
 */
async function checkUpstream(ctx: CommandContext, upstream: UpstreamConfig, alone: boolean, keychainOk: boolean): Promise<Check[]> {
  const name = alone ? "" : ` ${upstream.name}`;
  if (upstream.url === ECHO_UPSTREAM) return [{ ok: undefined, label: `Upstream${name}: echo (built in, offline): no reachability or key to check` }];
  const where = alone ? keychainAccount(upstream) : `${upstream.name} (${keychainAccount(upstream)})`;
  const state = await describeKey(ctx, upstream);
  const sources = sourcesOf(ctx, upstream);
  const several = sources.length > 1;
  const keyChecks: Check[] = (state.keys ?? [{ name: "", ...state }]).map((key, i) =>
    sources[i]!.kind === "keychain" && !keychainOk
      ? { ok: undefined, label: `Upstream${name} key${several ? ` ${key.name}` : ""}: not checked, the OS keychain is not available (above)` }
      : { ok: key.ok ?? undefined, label: `Upstream${name} key${several ? ` ${key.name}` : ""}: ${key.text}`, fix: keyFix(ctx, upstream, false, several ? [keySpecs(upstream.key)[i]!] : undefined) },
  );
  const keyless = sources[0]!.kind === "none" || sources[0]!.kind === "client";
  const keys = keyless ? [undefined] : await Promise.all(sources.map((source) => source.get().catch(() => undefined)));
  const checked: Check[] = [];
  let reached: Check | undefined;
  try {
    for (const [i, key] of keys.entries()) {
      const keyName = several ? ` ${sources[i]!.name}` : "";
      if (!keyless && key === undefined) {
        checked.push({ ok: undefined, label: `Upstream${name} key check${keyName} skipped: there is no key to send` });
        continue;
      }
      const result = await checkKey(upstream, key);
      reached ??= { ok: true, label: `Upstream ${where} reachable (HTTP ${result.status})` };
      checked.push(verdictOf(ctx, upstream, name, keyName, result, keyless));
    }
    // With no key to send the upstream is still asked once: whether it answers at all is worth knowing.
    reached ??= { ok: true, label: `Upstream ${where} reachable (HTTP ${(await checkKey(upstream, undefined)).status})` };
  } catch (error) {
    // A proxy plays no part on this machine, and a provider is never "not started": each gets the advice that fits.
    const fix = isLoopbackHost(new URL(upstream.url).hostname)
      ? "Start the server on this machine, or fix the URL's port in config.json (or gateway login --upstream <url>)."
      : "Check the URL in config.json (or gateway login --upstream <url>), your network, VPN and proxy (HTTPS_PROXY, NO_PROXY).";
    return [...keyChecks, { ok: false, label: `Upstream ${where} unreachable: ${(error as Error).message}`, fix }];
  }
  return [...keyChecks, reached, ...checked];
}

async function checkPort(ctx: CommandContext, flag: number | undefined): Promise<Check> {
  const running = await chooseGateway(ctx, flag);
  const { port, health } = running;
  if (running.owner === "other") {
    const problem = await notYours(ctx, port);
    return { ok: false, label: `Port ${port}: a gateway that is not yours answers there (it does not accept your local key)`, fix: problem.hint };
  }
  if (health) return { ok: true, label: `Port ${port}: your gateway (${health.version}) is running there` };
  if (await portFree(ctx.config.host, port)) return { ok: true, label: `Port ${port} is free` };
  const free = await suggestPort(ctx.config.host, port);
  return { ok: false, label: `Port ${port} is used by another program`, fix: `Free it (\`lsof -i :${port}\` shows which), or use a free port: gateway start --port ${free} (or "port" in config.json).` };
}

export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description("check Node, the keychain, each upstream (its key, reachable, key valid) and the port")
    .option("-p, --port <n>", "check the gateway (or the free port) on this port")
    .addHelpText("after", "\nExample:\n  gateway doctor")
    .action(async (options: { port?: string }) => {
      const ctx = createContext();
      const { upstreams } = ctx.config;
      const keychain = await checkKeychain(ctx);
      const perUpstream = await Promise.all(upstreams.map((upstream) => checkUpstream(ctx, upstream, upstreams.length === 1, keychain.ok === true)));
      const checks: Check[] = [checkNode(), keychain, ...perUpstream.flat(), await checkPort(ctx, portFlag(options.port))];
      for (const notice of baseUrlNotices(ctx.config)) log.info(notice);
      for (const check of checks) {
        const mark = check.ok === undefined ? "–" : check.ok ? "✔" : "✖";
        log.log(`${mark} ${check.label}${check.ok !== false || !check.fix ? "" : `\n    fix: ${check.fix}`}`);
      }
      const failed = checks.filter((check) => check.ok === false).length;
      if (failed > 0) throw new FailedError(`${failed} check${failed === 1 ? "" : "s"} failed.`, { hint: "Apply the fixes above and run `gateway doctor` again." });
    });
}
