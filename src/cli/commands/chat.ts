import { createInterface, type Interface } from "node:readline/promises";
import { Option, type Command } from "commander";
import { runningGateway, type LocalGateway } from "../../chat/local-gateway.js";
import { readEnvSecrets, upstreamLabel } from "../../config/index.js";
import { readReply, streamReply } from "../../chat/read-reply.js";
import { UsageError } from "../../errors/index.js";
import { FAMILY_NAMES, familyNamed } from "../../formats/families.js";
import type { Family, FamilyName, Turn } from "../../formats/index.js";
import { peekLocalKey } from "../../local-key/local-key.js";
import { liveGateways } from "../../running/find-gateway.js";
import { configChangedSince } from "../../running/stale-config.js";
import { createContext, type CommandContext } from "../context.js";
import { redact, secrets } from "../secrets.js";
import { log, print, readStdin } from "../terminal.js";

interface ChatOptions {
  model?: string;
  system?: string;
  api: FamilyName;
  maxTokens?: string;
  stream: boolean;
  json?: boolean;
}

interface Session {
  gateway: LocalGateway;
  family: Family;
  /** The model asked for; the gateway applies aliases and routes it. */
  model: string;
  options: ChatOptions;
}

/** Sends the conversation and writes the reply to stdout; returns the reply text. */
async function ask(session: Session, turns: readonly Turn[], signal: AbortSignal): Promise<string> {
  const { family, options } = session;
  const request = {
    model: session.model,
    system: options.system,
    maxTokens: options.maxTokens === undefined ? undefined : Number(options.maxTokens),
    stream: options.stream && !options.json,
  };
  const body = family.terminal.body(turns, request);
  const reply = await session.gateway.send(family, { method: "POST", path: family.terminal.path(request), body, signal });
  if (request.stream) {
    const out = secrets.redactor((text) => process.stdout.write(text));
    try {
      return await streamReply(reply, family, (piece) => out.write(piece));
    } finally {
      out.end();
      process.stdout.write("\n");
    }
  }
  const { json, text } = await readReply(reply, family);
  print(redact(options.json ? JSON.stringify(json, null, 2) : text));
  return text;
}

/**
 * A running gateway of this configuration (its record names this config directory and this default upstream, as one
 * started with another `--upstream` does not; it takes this user's local key; it started after config.json last
 * changed): the same routes and aliases, with its keys already loaded and its server already warm, so a one-off
 * prompt goes there rather than starting its own. When one runs but reads another config, why it is passed over is
 * said in one line: the request then reaches none of its log, `stats` or dashboard.
 */
async function runningGatewayOf(ctx: CommandContext): Promise<LocalGateway | undefined> {
  const localKey = peekLocalKey(ctx.config.configDir, readEnvSecrets(ctx.env).localKey);
  if (!localKey) return undefined;
  const live = (await liveGateways(ctx.config, localKey)).find((gateway) => gateway.thisConfig && gateway.owner === "yours");
  if (!live?.record) return undefined;
  const why =
    live.record.upstream !== upstreamLabel(ctx.config.upstream)
      ? `was started with another upstream (${live.record.upstream})`
      : configChangedSince(ctx.config.configDir, live.record.startedAt)
        ? "reads an older config.json (it changed after the gateway started)"
        : undefined;
  if (why === undefined) return runningGateway(live.port, localKey);
  log.info(`The gateway on port ${live.port} ${why}, so this chat answers in its own process and is in none of its log, stats or dashboard; \`gateway stop && gateway start --detach\` makes it read the config again.`);
  return undefined;
}

/** One line from the prompt, or undefined when the session ends (Ctrl-D, or Ctrl-C at the prompt). */
async function readLine(rl: Interface): Promise<string | undefined> {
  const asking = new AbortController();
  const onClose = () => asking.abort();
  rl.once("close", onClose);
  try {
    return await rl.question("> ", { signal: asking.signal });
  } catch {
    return undefined;
  } finally {
    rl.off("close", onClose);
  }
}

/** A prompt line per turn; Ctrl-C stops the reply in progress; Ctrl-D or Ctrl-C at the prompt ends the session. */
async function interactive(session: Session): Promise<void> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const turns: Turn[] = [];
  let current: AbortController | undefined;
  rl.on("SIGINT", () => {
    if (current) current.abort();
    else rl.close();
  });
  log.info(`Chatting with ${session.model} (${session.family.name} style). Ctrl-C stops a reply; Ctrl-D or Ctrl-C at the prompt exits.`);
  for (let line = await readLine(rl); line !== undefined; line = await readLine(rl)) {
    if (!line.trim()) continue;
    turns.push({ role: "user", content: line });
    current = new AbortController();
    try {
      turns.push({ role: "assistant", content: await ask(session, turns, current.signal) });
    } catch (error) {
      turns.pop();
      if (current.signal.aborted) process.stdout.write("\n");
      else log.error(redact((error as Error).message));
    }
    current = undefined;
  }
  rl.close();
}

export function registerChat(program: Command): void {
  program
    .command("chat")
    .description("send a prompt to the upstream its model routes to and stream the reply (no running gateway needed)")
    .argument("[prompt...]", "the prompt; piped standard input comes first")
    .option("-m, --model <id>", "model id, or an alias from config.json (default: defaultModel)")
    .option("-s, --system <text>", "system prompt (Gemini: systemInstruction)")
    .addOption(new Option("--api <style>", "wire style").choices(FAMILY_NAMES).default("chat"))
    .option("--max-tokens <n>", "most tokens to generate (Gemini: maxOutputTokens)")
    .option("--no-stream", "wait for the whole reply")
    .option("--json", "print the upstream's whole response object (implies --no-stream)")
    .addHelpText("after", '\nExamples:\n  gateway chat -m echo-1 "hello"\n  gateway chat -m claude-sonnet --api messages "why does this fail?" < error.log\n  gateway chat -m gemini-2.5-flash --api gemini "hi"\n  gateway chat -m echo-1            (interactive)')
    .action(async (words: string[], options: ChatOptions) => {
      if (options.maxTokens !== undefined && !/^[1-9]\d*$/.test(options.maxTokens)) {
        throw new UsageError(`--max-tokens must be a positive integer (got "${options.maxTokens}").`);
      }
      const ctx = createContext();
      const model = options.model ?? ctx.config.defaultModel;
      if (!model) throw new UsageError("No model given.", { hint: 'Pass -m <id> (`gateway models` lists them), or set "defaultModel" in config.json.' });
      const piped = process.stdin.isTTY ? "" : await readStdin();
      const prompt = [piped.trim(), words.join(" ")].filter(Boolean).join("\n\n");
      // Standard input was read (it is not a terminal) and held nothing: `git diff | gateway chat -s ...` on a clean tree.
      if (!prompt && !process.stdin.isTTY) {
        throw new UsageError("Standard input was empty: nothing was piped in, and no prompt was given.", {
          hint: 'Check the command before the | (it printed nothing), or pass the prompt: gateway chat "your question".',
        });
      }
      const gateway = (await runningGatewayOf(ctx)) ?? (await (await import("../in-process-chat.js")).openInProcess(ctx));
      const session: Session = { gateway, family: familyNamed(options.api), model, options };
      try {
        if (prompt) {
          // Ctrl-C during a one-off reply: stop at once with the conventional 130, no stack trace.
          process.once("SIGINT", () => process.exit(130));
          await ask(session, [{ role: "user", content: prompt }], new AbortController().signal);
        } else await interactive(session);
      } finally {
        await gateway.close();
      }
    });
}
