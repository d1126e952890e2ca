import type { Command } from "commander";
import { ECHO_UPSTREAM, type GatewayConfig, type UpstreamConfig } from "../../config/index.js";
import { UpstreamStatusError, UsageError } from "../../errors/index.js";
import { readRegularFile, writePrivateFile } from "../../files/private-files.js";
import { checkKey } from "../../upstream/check-key.js";
import { createContext, type CommandContext } from "../context.js";
import { rememberSecret } from "../secrets.js";
import { askKey } from "../ask-key.js";
import { log } from "../terminal.js";
import { keychainAccount, namedUpstream } from "../upstream-keys.js";

interface LoginOptions {
  upstream?: string;
  stdin?: boolean;
  verify: boolean;
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

/** Checks the key against the upstream's model list in a format it serves; a refusal or an error status stores nothing. */
async function verify(upstream: UpstreamConfig, key: string): Promise<void> {
  log.start(`Checking the key against ${upstream.name === "default" ? keychainAccount(upstream) : `${upstream.name} (${keychainAccount(upstream)})`} ...`);
  const result = await checkKey(upstream, key);
  if (result.status === 401 || result.status === 403) {
    throw new UpstreamStatusError(upstream.name, result.status, `The upstream rejected this key (${result.status}${result.message ? `: ${result.message}` : ""}). Nothing was stored.`, {
      hint: "Check the key and the upstream URL, then run `gateway login` again.",
    });
  }
  if (result.status < 200 || result.status >= 300) {
    throw new UpstreamStatusError(upstream.name, result.status, `The upstream answered ${result.status} to ${result.path} when checking the key${result.message ? ` (${result.message})` : ""}. Nothing was stored.`, {
      hint: "Try again later, or store it anyway with --no-verify.",
    });
  }
}

export function registerLogin(program: Command): void {
  program
    .command("login")
    .description("store an upstream's key in the OS keychain (the default upstream, or the one named)")
    .argument("[name]", "an upstream of the config's `upstreams` (default: the default upstream)")
    .option("--upstream <url>", "the default upstream's base URL (asked when none is configured)")
    .option("--stdin", "read the key from standard input instead of asking")
    .option("--no-verify", "store without checking the key against the upstream's model list")
    .addHelpText("after", "\nExamples:\n  gateway login --upstream https://gateway.example.com\n  printf %s \"$KEY\" | gateway login --stdin\n  gateway login openrouter")
    .action(async (name: string | undefined, options: LoginOptions) => {
      const { ctx, upstream } = await upstreamToLogIn(name, options);
      if (upstream.url === ECHO_UPSTREAM) {
        if (name !== undefined) return log.info(`The upstream ${upstream.name} is the built-in echo upstream: it needs no key.`);
        throw new UsageError("The echo upstream needs no key.", { hint: "Pass a real upstream: gateway login --upstream https://<your-gateway>" });
      }
      if (upstream.key.kind !== "keychain") {
        const from = upstream.key.kind === "none" ? 'sends no key (key: "none")' : `takes its key from $${upstream.key.variable} (key: "env:${upstream.key.variable}")`;
        return log.info(`The upstream ${upstream.name} ${from}, so it needs no login.`);
      }
      const account = keychainAccount(upstream);
      // Reach the keychain before asking for anything: a key typed in for nothing is a bad first experience.
      await ctx.store.get(account);
      const key = await askKey(options.stdin === true);
      rememberSecret(key);
      if (!key) throw new UsageError("No key was given.", { hint: "Type or pipe the upstream key." });
      if (options.verify) await verify(upstream, key);
      await ctx.store.set(account, key);
      // A default made from a URL is remembered; one named in `upstreams` is already in the file.
      if (upstream.name === "default") saveUpstream(ctx.config, upstream.url);
      log.success(`Key stored in the OS keychain (service "gateway", account ${account}). Start the gateway: gateway start`);
    });
}
