import { SUMMARY_PROMPT } from "../../src/formats/responses/compaction.js";
import { unpaired, type Item } from "./agent-conversation.js";
import { callMove, startPlayingUpstream, type AgentRequest, type ShellTool } from "./agent-upstream.js";
import { refusalOf, STRICT_KINDS } from "./strict/index.js";

/**
 * What each tool sends to compact: its summarising instruction, in the system prompt or the last user message (the
 * gateway's own for Codex's remote compaction, SPEC 11).
 */
const COMPACTION = new RegExp(`CONTEXT CHECKPOINT COMPACTION|create a detailed summary of the conversation so far|(generate|produce) the (final )?<state_snapshot>|${SUMMARY_PROMPT.slice(0, 60)}`);

/** The summary the fake answers a compaction with; Qwen Code 0.24 wants it in a closed <state_snapshot>. */
export const SUMMARY_MARK = "SESSION-SUMMARY-5f1c";
const SUMMARY = `<state_snapshot><summary>${SUMMARY_MARK}: the user asked for the long-session commands; they ran and printed their numbers.</summary></state_snapshot>`;

/** The command of call `n` and what it prints. */
export const sessionCommand = (n: number) => `echo long-session-${n}`;
const output = (n: number) => `long-session-${n}`;

const textOf = (items: readonly Item[]) => items.map((item) => (item.kind === "call" ? "" : item.text)).join("\n");

/** What the session's first run answers once it has made `compactAfter` calls, when it pauses for a compaction. */
export const PAUSED = "Paused for a compaction.";

const lastUserText = (items: readonly Item[]): string => {
  const item = [...items].reverse().find((entry) => entry.kind === "text" && entry.role === "user");
  return item?.kind === "text" ? item.text.trim() : "";
};

function isCompaction({ items }: AgentRequest): boolean {
  const lastUser = [...items].reverse().find((item) => item.kind === "text" && item.role === "user");
  const system = items.filter((item) => item.kind === "text" && item.role === "system");
  return [...system, ...(lastUser ? [lastUser] : [])].some((item) => item.kind === "text" && COMPACTION.test(item.text));
}

/**
 * A fake upstream playing a long agent session: `calls` shell calls one after the other (each a model turn of its
 * own), then `final`. After call `compactAfter` it reports a prompt of `hugePrompt` tokens, so the tool compacts
 * by itself, or (`pause`) answers `PAUSED`, ending the tool's run so that the test can ask for a compaction;
 * the compaction request (known by each tool's summarising instruction) gets a summary. Every other request is
 * checked, and what is wrong goes into `problems`: every tool call paired with its result; before the compaction
 * every earlier command's output still there, after it the summary and every later output. It is the generic strict
 * chat fake, so a request any chat server would refuse (a call without its result) gets that server's 400.
 */
export async function startLongSession(options: { tool: ShellTool; calls: number; compactAfter: number; hugePrompt?: number; pause?: boolean; final: string }) {
  let issued = 0;
  let compactedAt: number | undefined;
  const problems: string[] = [];
  const compactions: number[] = [];
  const upstream = await startPlayingUpstream((request) => {
    if (isCompaction(request)) {
      compactions.push(issued);
      compactedAt = issued;
      return { move: { kind: "text", text: SUMMARY } };
    }
    if (!request.tools.includes(options.tool.name)) return { move: { kind: "text", text: "ok" } };
    const at = `request ${upstream.received.length} (after call ${issued})`;
    for (const problem of unpaired(request.items)) problems.push(`${at}: ${problem}`);
    const text = textOf(request.items);
    const from = compactedAt === undefined ? 1 : compactedAt + 1;
    if (compactedAt !== undefined && !text.includes(SUMMARY_MARK)) problems.push(`${at}: the summary is missing`);
    for (let n = from; n <= issued; n++) if (!text.includes(output(n))) problems.push(`${at}: the output of call ${n} is missing`);
    if (/^\/(compact|compress)\b/.test(lastUserText(request.items))) problems.push(`${at}: a slash command reached the model`);
    if (issued >= options.calls) return { move: { kind: "text", text: options.final } };
    if (options.pause && issued === options.compactAfter && compactedAt === undefined) return { move: { kind: "text", text: PAUSED }, usage: options.hugePrompt ? { input: options.hugePrompt, output: 7 } : undefined };
    issued++;
    const usage = issued === options.compactAfter && options.hugePrompt ? { input: options.hugePrompt, output: 7 } : undefined;
    return { move: callMove(options.tool, sessionCommand(issued), issued), usage };
  }, { refuse: (request) => refusalOf(STRICT_KINDS.generic, request) });
  return Object.assign(upstream, { problems, compactions, issued: () => issued });
}
