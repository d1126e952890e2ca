import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { streamReply, readReply } from "../../chat/read-reply.js";
import { buildChatBody, type Turn } from "../../chat/conversation.js";
import { requestUpstream } from "../../chat/upstream-request.js";
import { CliError } from "../../errors.js";
import type { FamilyName } from "../../families/index.js";
import { openUpstream, type OpenUpstream } from "../../upstream/open-upstream.js";
import { createContext, resolveKeySource, type CommandContext } from "../context.js";
import { log, print, readStdin } from "../terminal.js";

interface ChatOptions {
  model?: string;
  system?: string;
  api: string;
  maxTokens?: string;
  stream: boolean;
  json?: boolean;
}

interface Session {
  ctx: CommandContext;
  upstream: OpenUpstream;
  family: FamilyName;
  model: string;
  options: ChatOptions;
}

/** Sends the conversation and writes the reply to stdout; returns the reply text. */
async function ask(session: Session, turns: readonly Turn[], signal: AbortSignal): Promise<string> {
  const { family, options } = session;
  const stream = options.stream && !options.json;
  const body = buildChatBody(turns, {
    family,
    model: session.model,
    system: options.system,
    maxTokens: options.maxTokens === undefined ? undefined : Number(options.maxTokens),
    stream,
  });
  const path = family === "messages" ? "/v1/messages" : "/v1/chat/completions";
  const reply = await requestUpstream(session.upstream.client, session.ctx.config, family, { method: "POST", path, body, signal });
  if (stream) {
    const text = await streamReply(reply, family, (piece) => process.stdout.write(piece));
    process.stdout.write("\n");
    return text;
  }
  const { json, text } = await readReply(reply, family);
  print(options.json ? JSON.stringify(json, null, 2) : text);
  return text;
}

/** A prompt line per turn; Ctrl-C stops the reply in progress, Ctrl-D (or Ctrl-C at the prompt) leaves. */
async function interactive(session: Session): Promise<void> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const turns: Turn[] = [];
  let current: AbortController | undefined;
  rl.on("SIGINT", () => {
    if (current) current.abort();
    else rl.close();
  });
  log.info(`Chatting with ${session.model} (${session.family} style). Ctrl-C stops a reply, Ctrl-D exits.`);
  for (;;) {
    let line: string;
    try {
      line = await rl.question("> ");
    } catch {
      break;
    }
    if (!line.trim()) continue;
    turns.push({ role: "user", content: line });
    current = new AbortController();
    try {
      turns.push({ role: "assistant", content: await ask(session, turns, current.signal) });
    } catch (error) {
      turns.pop();
      if (current.signal.aborted) process.stdout.write("\n");
      else log.error((error as Error).message);
    }
    current = undefined;
  }
  rl.close();
}

export function registerChat(program: Command): void {
  program
    .command("chat")
    .description("send a prompt straight to the upstream and stream the reply (no running gateway needed)")
    .argument("[prompt...]", "the prompt; piped standard input comes first")
    .option("-m, --model <id>", "model id (default: defaultModel from the config)")
    .option("-s, --system <text>", "system prompt")
    .option("--api <style>", "chat or messages", "chat")
    .option("--max-tokens <n>", "most tokens to generate")
    .option("--no-stream", "wait for the whole reply")
    .option("--json", "print the upstream's whole response object (implies --no-stream)")
    .addHelpText("after", '\nExamples:\n  gateway chat -m echo-1 "hello"\n  gateway chat -m claude-sonnet --api messages "why does this fail?" < error.log\n  gateway chat -m echo-1            (interactive)')
    .action(async (words: string[], options: ChatOptions) => {
      if (options.api !== "chat" && options.api !== "messages") {
        throw new CliError(`Unknown --api "${options.api}".`, { hint: "Use --api chat or --api messages.", exitCode: 2 });
      }
      if (options.maxTokens !== undefined && !/^[1-9]\d*$/.test(options.maxTokens)) {
        throw new CliError(`--max-tokens must be a positive integer (got "${options.maxTokens}").`, { exitCode: 2 });
      }
      const ctx = createContext();
      const model = options.model ?? ctx.config.defaultModel;
      if (!model) {
        throw new CliError("No model given.", { hint: 'Pass -m <id> (`gateway models` lists them), or set "defaultModel" in config.json.', exitCode: 2 });
      }
      const piped = process.stdin.isTTY ? "" : await readStdin();
      const prompt = [piped.trim(), words.join(" ")].filter(Boolean).join("\n\n");
      const upstream = await openUpstream(ctx.config, await resolveKeySource(ctx));
      const session: Session = { ctx, upstream, family: options.api, model, options };
      try {
        if (prompt) {
          // Ctrl-C during a one-off reply: stop at once with the conventional 130, no stack trace.
          process.once("SIGINT", () => process.exit(130));
          await ask(session, [{ role: "user", content: prompt }], new AbortController().signal);
        }
        else if (process.stdin.isTTY) await interactive(session);
        else throw new CliError("No prompt given.", { hint: 'Pass one: gateway chat "your question", or pipe text in.', exitCode: 2 });
      } finally {
        await upstream.close();
      }
    });
}
