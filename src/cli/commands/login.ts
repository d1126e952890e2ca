import type { Command } from "commander";
import { ECHO_UPSTREAM, keySpecs, type GatewayConfig, type UpstreamConfig } from "../../config/index.js";
import { UpstreamStatusError, UsageError } from "../../errors/index.js";
import { readRegularFile, writePrivateFile } from "../../files/private-files.js";
import { KEY_TTL_MS } from "../../keychain/index.js";
import { askKeyStates } from "../../running/probe-health.js";
import { checkKey } from "../../upstream/check-key.js";
import { baseUrlNotice, CHECK_BASE_URL } from "../base-url-notice.js";
import { createContext, localKeyOf, type CommandContext } from "../context.js";
import { chooseGateway } from "../running-gateway.js";
import { rememberSecret } from "../secrets.js";
import { askKey } from "../ask-key.js";
import { log } from "../terminal.js";
import { keychainAccount, keyLabel, keyWords, namedUpstream } from "../upstream-keys.js";

interface LoginOptions {
  upstream?: string;
  stdin?: boolean;
  verify: boolean;
  label?: string;
}

/**
 * Records the default upstream's URL in config.json (never the key), keeping the file's other fields: read without
 * following a link, written atomically with mode 0600 (SPEC section 8, Files).
 */
function saveUpstream(config: GatewayConfig, url: string): void {
  const text = readRegularFile(config.configFile)?.text;
  const data = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (data.upstream === url) return;
  writePrivateFile(config.configFile, `${JSON.stringify({ ...data, upstream: url }, null, 2)}\n`);
}

async function askUpstream(): Promise<string> {
  if (!process.stdin.isTTY) {
    throw new UsageError("No upstream is configured.", { hint: "Pass it: gateway login --upstream https://<your-gateway>" });
  }
  // The prompt libraries load only when a question is asked: `login --stdin` and every other command skip them.
  const { consola } = await import("consola");
  const answer = await consola.prompt("Upstream base URL (e.g. https://gateway.example.com):", { type: "text", cancel: "reject" });
  return String(answer).trim();
}

/** The upstream `login` stores a key for: the named one, else the default (made from `--upstream` or asked for). */
async function upstreamToLogIn(name: string | undefined, options: LoginOptions): Promise<{ ctx: CommandContext; upstream: UpstreamConfig }> {
  if (name !== undefined) {
    const ctx = createContext();
    return { ctx, upstream: namedUpstream(ctx, name) };
  }
  const configured = createContext();
  const defaultUrl = configured.config.upstreams.find((upstream) => upstream.name === configured.config.defaultUpstream)!.url;
  const ctx = options.upstream !== undefined ? createContext({ upstream: options.upstream }) : defaultUrl === ECHO_UPSTREAM ? createContext({ upstream: await askUpstream() }) : configured;
  return { ctx, upstream: ctx.config.upstreams.find((upstream) => upstream.name === ctx.config.defaultUpstream)! };
}

/**
 * Checks the key against the upstream's model list in a format it serves; a refusal or an error status stores nothing.
 * A 404 is a URL that is not the API's base, whatever the key.
 */
async function verify(upstream: UpstreamConfig, key: string): Promise<void> {
  log.start(`Checking the key against ${upstream.name === "default" ? keychainAccount(upstream) : `${upstream.name} (${keychainAccount(upstream)})`} ...`);
  const result = await checkKey(upstream, key);
  if (result.refused) {
    throw new UpstreamStatusError(upstream.name, result.status, `The upstream rejected this key (${result.status}${result.message ? `: ${result.message}` : ""}). Nothing was stored.`, {
      hint: "Check the key and the upstream URL, then run `gateway login` again.",
    });
  }
  if (result.status === 404) {
    throw new UpstreamStatusError(upstream.name, result.status, `The upstream has no model list at ${result.path} (HTTP 404), so the key could not be checked. Nothing was stored.`, {
      hint: `Check the upstream URL: ${CHECK_BASE_URL}. Or store the key unchecked with --no-verify.`,
    });
  }
  if (result.status < 200 || result.status >= 300) {
    throw new UpstreamStatusError(upstream.name, result.status, `The upstream answered ${result.status} to ${result.path} when checking the key${result.message ? ` (${result.message})` : ""}. Nothing was stored.`, {
      hint: "Try again later, or store it anyway with --no-verify.",
    });
  }
}

/**
 * What comes after storing the key of `account`, and true (issue 37, item 15): start a gateway when none of this
 * configuration runs; else whether the running one uses it (it reads the keychain again within KEY_TTL_MS, SPEC 8)
 * or must be restarted to (it serves no upstream there, or takes that upstream's key from elsewhere).
 */
async function nextStep(ctx: CommandContext, account: string): Promise<string> {
  const running = await chooseGateway(ctx, undefined);
  if (!running.health || running.owner === "other") return "Start the gateway: gateway start";
  const url = `http://127.0.0.1:${running.port}`;
  const served = (running.health.upstreams ?? []).filter((upstream) => upstream.url === account).map((upstream) => upstream.name);
  if (served.length === 0) {
    const serves = (running.health.upstreams ?? []).map((upstream) => upstream.url).join(", ") || running.health.upstream;
    return `The gateway running on ${url} does not use it: it serves ${serves}. Restart it to serve ${account}: gateway stop, then gateway start`;
  }
  // A gateway too old to be asked reads the keychain like any other.
  const states = (await askKeyStates(running.port, localKeyOf(ctx)))?.filter((state) => served.includes(state.name));
  if (states?.length && states.every((state) => state.key.source !== "keychain")) {
    return `The gateway running on ${url} does not read it from the keychain (that upstream's key: ${states[0]!.key.describe}).`;
  }
  return `The gateway running on ${url} uses it within ${KEY_TTL_MS / 1000} s; no restart needed.`;
}

export function registerLogin(program: Command): void {
  program
    .command("login")
    .description("store an upstream's key in the OS keychain (the default upstream, or the one named)")
    .argument("[name]", "an upstream of the config's `upstreams` (default: the default upstream)")
    .option("--upstream <url>", "the default upstream's base URL (asked when none is configured)")
    .option("--stdin", "read the key from standard input instead of asking")
    .option("--no-verify", "store without checking the key against the upstream's model list")
    .option("--label <label>", 'store one of its several keys: the one its "key" names "keychain:<label>"')
    .addHelpText("after", "\nExamples:\n  gateway login --upstream https://gateway.example.com\n  printf %s \"$KEY\" | gateway login --stdin\n  gateway login openrouter\n  gateway login openrouter --label work")
    .action(async (name: string | undefined, options: LoginOptions) => {
      const { ctx, upstream } = await upstreamToLogIn(name, options);
      if (upstream.url === ECHO_UPSTREAM) {
        if (name !== undefined) return log.info(`The upstream ${upstream.name} is the built-in echo upstream: it needs no key.`);
        throw new UsageError("The echo upstream needs no key.", { hint: "Pass a real upstream: gateway login --upstream https://<your-gateway>" });
      }
      const label = keyLabel(options.label);
      const specs = keySpecs(upstream.key);
      if (!specs.some((spec) => spec.kind === "keychain")) return log.info(`The upstream ${upstream.name} ${keyWords(upstream)}, so it needs no login.`);
      const notice = baseUrlNotice(upstream, ctx.config.upstreams.length === 1);
      if (notice) log.info(notice);
      const account = keychainAccount(upstream, label);
      // Reach the keychain before asking for anything: a key typed in for nothing is a bad first experience.
      await ctx.store.get(account);
      const key = await askKey(options.stdin === true);
      rememberSecret(key);
      if (!key) throw new UsageError("No key was given.", { hint: "Type or pipe the upstream key." });
      if (options.verify) await verify(upstream, key);
      await ctx.store.set(account, key);
      // A default made from a URL is remembered; one named in `upstreams` is already in the file.
      if (upstream.name === "default") saveUpstream(ctx.config, upstream.url);
      const used = specs.some((spec) => spec.kind === "keychain" && spec.label === label);
      if (!used) log.warn(`The upstream ${upstream.name} does not use this key yet: add "${label === undefined ? "keychain" : `keychain:${label}`}" to its "key" in ${ctx.config.configFile}.`);
      log.success(`Key stored in the OS keychain (service "gateway", account ${account}). ${used ? await nextStep(ctx, keychainAccount(upstream)) : ""}`.trimEnd());
    });
}
