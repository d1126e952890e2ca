// Long conversations, the way a coding tool sends them: the recorded Claude Code request (test/fixtures/) grown by
// turns of a working session until it reaches a size: the assistant thinks (a signed thinking block), says a line and
// calls a tool (Read, Bash, Grep, Edit); the tool's result comes back, a file's contents with Claude Code's line
// numbers, a command's output, a list of matches. The files read are this repository's own sources, so the text is
// real code. The same conversation in the Responses format (Codex's shape: instructions, input items, function calls
// and their outputs, reasoning items) for the responses -> chat scenario. Deterministic: every run, every target,
// the same bytes (the model aside, which each target names its own way).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const recorded = JSON.parse(readFileSync(join(root, "test/fixtures/claude-code-2.1.197-messages.json"), "utf8")).body;

/** The repository's TypeScript sources, in a fixed order: what the session reads. */
function sourceFiles() {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) out.push({ path, text: readFileSync(join(root, path), "utf8") });
    }
  };
  walk("src");
  return out;
}

/** A small deterministic generator (mulberry32): ids and signatures look random and are the same every run. */
function random(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const base64Of = (next, length) => Array.from({ length }, () => BASE64[Math.floor(next() * 64)]).join("");

/** Claude Code's Read result: each line after its number, right-aligned to six, and an arrow. */
const numbered = (text) =>
  text
    .split("\n")
    .map((line, i) => `${String(i + 1).padStart(6)}→${line}`)
    .join("\n");

const WORK = "/home/dev/gateway";

/** One step of the session: what the assistant thought and said, the tool it called, and what came back. */
function step(i, files, next) {
  const file = files[i % files.length];
  const kind = i % 5;
  const thinking = `The user wants the request path faster. ${kind === 0 ? "Let me see how the body is read" : kind === 1 ? "Let me list what this folder holds" : kind === 2 ? "I should find every caller first" : kind === 3 ? "Let me read the next module" : "A small edit here, then run the tests"}: ${file.path} is the place to look, and what it imports decides what loads before the first request.`;
  const call =
    kind === 1
      ? { name: "Bash", input: { command: `ls -la ${WORK}/${file.path.split("/").slice(0, -1).join("/")}`, description: "List the folder" } }
      : kind === 2
        ? { name: "Grep", input: { pattern: "export function", path: `${WORK}/${file.path}`, output_mode: "content", "-n": true } }
        : kind === 4
          ? { name: "Edit", input: { file_path: `${WORK}/${file.path}`, old_string: file.text.slice(0, 120), new_string: `${file.text.slice(0, 120)}\n// checked` } }
          : { name: "Read", input: { file_path: `${WORK}/${file.path}` } };
  const result =
    kind === 1
      ? files
          .filter((f) => f.path.startsWith(file.path.split("/").slice(0, -1).join("/")))
          .map((f) => `-rw-r--r-- 1 dev dev ${String(f.text.length).padStart(6)} Nov 23 10:0${f.path.length % 10} ${f.path.split("/").at(-1)}`)
          .join("\n")
      : kind === 2
        ? file.text
            .split("\n")
            .map((line, n) => (line.includes("export") ? `${n + 1}:${line}` : undefined))
            .filter(Boolean)
            .join("\n") || "No matches found"
        : kind === 4
          ? `The file ${WORK}/${file.path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${numbered(file.text.slice(0, 600))}`
          : numbered(file.text);
  return { id: `toolu_01${base64Of(next, 22).replace(/[+/]/g, "x")}`, thinking, signature: base64Of(next, 344), text: kind === 4 ? "Making the change." : "Let me look.", call, result };
}

/** The recorded request grown by steps until it holds at least `bytes` of JSON (the last step passes it by at most a few KB). */
function stepsFor(bytes) {
  const files = sourceFiles();
  const next = random(43);
  const steps = [];
  let size = Buffer.byteLength(JSON.stringify(recorded));
  while (size < bytes) {
    const s = step(steps.length, files, next);
    steps.push(s);
    // The step's JSON and the turns' framing around it (roles, types, ids again).
    size += Buffer.byteLength(JSON.stringify(s)) + 170;
  }
  return steps;
}

/** A Claude-Code-shaped messages request of about `bytes`, naming `model`. */
function messagesBody(steps, model) {
  const messages = structuredClone(recorded.messages);
  for (const s of steps) {
    messages.push({
      role: "assistant",
      content: [
        { type: "thinking", thinking: s.thinking, signature: s.signature },
        { type: "text", text: s.text },
        { type: "tool_use", id: s.id, name: s.call.name, input: s.call.input },
      ],
    });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: s.id, content: s.result }] });
  }
  // Claude Code marks the newest turn for the prompt cache.
  messages.at(-1).content.at(-1).cache_control = { type: "ephemeral" };
  return { ...recorded, model, messages };
}

const textOf = (blocks) => blocks.map((block) => block.text).join("\n");

/** The same conversation as a Codex-shaped Responses request. */
function responsesBody(steps, model) {
  const input = [{ type: "message", role: "user", content: recorded.messages[0].content.map((block) => ({ type: "input_text", text: block.text })) }];
  for (const s of steps) {
    input.push({ type: "reasoning", summary: [{ type: "summary_text", text: s.thinking }], encrypted_content: s.signature });
    input.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: s.text }] });
    input.push({ type: "function_call", call_id: s.id, name: s.call.name, arguments: JSON.stringify(s.call.input) });
    input.push({ type: "function_call_output", call_id: s.id, output: s.result });
  }
  return {
    model,
    instructions: textOf(recorded.system),
    input,
    tools: recorded.tools.map((tool) => ({ type: "function", name: tool.name, description: tool.description, strict: false, parameters: tool.input_schema })),
    tool_choice: "auto",
    parallel_tool_calls: false,
    reasoning: { effort: "medium", summary: "auto" },
    store: false,
    stream: true,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "00000000-0000-0000-0000-000000000000",
  };
}

/** `{ messages(model), responses(model) }`: the bodies of a conversation of about `bytes`, as Buffers, cached per model. */
export function conversation(bytes) {
  const steps = stepsFor(bytes);
  const cache = new Map();
  const cached = (key, make) => {
    if (!cache.has(key)) cache.set(key, Buffer.from(JSON.stringify(make())));
    return cache.get(key);
  };
  return {
    messages: (model) => cached(`m ${model}`, () => messagesBody(steps, model)),
    responses: (model) => cached(`r ${model}`, () => responsesBody(steps, model)),
  };
}
