import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { Command } from "commander";
import { ECHO_UPSTREAM, type GatewayConfig } from "../../config/index.js";
import { UpstreamError, UsageError } from "../../errors/index.js";
import { checkKey } from "../../upstream/check-key.js";
import { createContext, keychainAccount } from "../context.js";
import { rememberSecret } from "../secrets.js";
import { log, readStdin } from "../terminal.js";

interface LoginOptions {
  upstream?: string;
  stdin?: boolean;
  verify: boolean;
}

/** Records the upstream URL in config.json (never the key), keeping the file's other fields. */
function saveUpstream(config: GatewayConfig): void {
  let data: Record<string, unknown> = {};
  try {
    data = JSON.parse(readFileSync(config.configFile, "utf8")) as Record<string, unknown>;
  } catch {
    data = {};
  }
  if (data.upstream === config.upstream) return;
  mkdirSync(config.configDir, { recursive: true, mode: 0o700 });
  writeFileSync(config.configFile, `${JSON.stringify({ ...data, upstream: config.upstream }, null, 2)}\n`, { mode: 0o600 });
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

async function askKey(stdin: boolean): Promise<string> {
  if (stdin) return (await readStdin()).trim();
  if (!process.stdin.isTTY) {
    throw new UsageError("Cannot ask for the key: standard input is not a terminal.", { hint: "Pipe the key in with --stdin." });
  }
  const { default: password } = await import("@inquirer/password");
  return (await password({ message: "Upstream API key (input hidden):", mask: false })).trim();
}

export function registerLogin(program: Command): void {
  program
    .command("login")
    .description("store the upstream key in the OS keychain")
    .option("--upstream <url>", "upstream base URL (asked when none is configured)")
    .option("--stdin", "read the key from standard input instead of asking")
    .option("--no-verify", "store without checking the key against {base}/v1/models")
    .addHelpText("after", "\nExample:\n  gateway login --upstream https://gateway.example.com\n  printf %s \"$KEY\" | gateway login --stdin")
    .action(async (options: LoginOptions) => {
      const configured = createContext().config;
      const upstream = options.upstream ?? (configured.upstream === ECHO_UPSTREAM ? await askUpstream() : configured.upstream);
      const ctx = createContext({ upstream });
      if (ctx.config.upstream === ECHO_UPSTREAM) {
        throw new UsageError("The echo upstream needs no key.", { hint: "Pass a real upstream: gateway login --upstream https://<your-gateway>" });
      }
      const account = keychainAccount(ctx.config);
      // Reach the keychain before asking for anything: a key typed in for nothing is a bad first experience.
      await ctx.store.get(account);
      const key = await askKey(options.stdin === true);
      rememberSecret(key);
      if (!key) throw new UsageError("No key was given.", { hint: "Type or pipe the upstream key." });
      if (options.verify) {
        log.start(`Checking the key against ${account}/v1/models ...`);
        const result = await checkKey(ctx.config, key);
        if (result.status === 401 || result.status === 403) {
          throw new UpstreamError(`The upstream rejected this key (${result.status}${result.message ? `: ${result.message}` : ""}). Nothing was stored.`, {
            hint: "Check the key and the upstream URL, then run `gateway login` again.",
          });
        }
        if (result.status < 200 || result.status >= 300) {
          throw new UpstreamError(`The upstream answered ${result.status} when checking the key. Nothing was stored.`, {
            hint: "Try again later, or store it anyway with --no-verify.",
          });
        }
      }
      await ctx.store.set(account, key);
      saveUpstream(ctx.config);
      log.success(`Key stored in the OS keychain (service "gateway", account ${account}). Start the gateway: gateway start`);
    });
}
