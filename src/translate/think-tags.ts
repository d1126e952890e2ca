/**
 * Reasoning a model writes into its content between `<think>` and `</think>` (Qwen3, DeepSeek-R1, QwQ behind a server
 * started without a reasoning parser: llama.cpp with `--reasoning-format none`, vLLM without `--reasoning-parser`,
 * some LM Studio builds), read as reasoning (research B1, "reasoning fields read"). Only a `<think>` at the very start
 * of the content counts (after white space): a tag later in an answer is the answer's text (a model explaining the
 * tag, code that holds it). The tags may arrive cut anywhere across chunks, so the few characters that could still
 * be the start of a tag wait for the next piece, and nothing else waits.
 */

const OPEN = "<think>";
const CLOSE = "</think>";

/** A piece of the content, as reasoning or as the answer's text. */
export interface ContentPiece {
  kind: "reasoning" | "text";
  text: string;
}

/** How many characters at the end of `text` could begin `tag`: they wait, since the next piece may finish it. */
function tagStartAtEnd(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) if (tag.startsWith(text.slice(-length))) return length;
  return 0;
}

/**
 * A splitter for one reply's content, fed its pieces in order. States: `start` (only white space so far: it could
 * still open with `<think>`), `think` (inside the tags), `lead` (after `</think>`: the blank lines before the answer
 * are dropped, so no answer starts with them), `text` (everything else, passed through untouched).
 */
export function createThinkSplitter() {
  let state: "start" | "think" | "lead" | "text" = "start";
  let held = "";

  function push(piece: string): ContentPiece[] {
    if (state === "text") return piece ? [{ kind: "text", text: piece }] : [];
    held += piece;
    const out: ContentPiece[] = [];
    for (;;) {
      if (state === "start") {
        const trimmed = held.trimStart();
        if (trimmed.startsWith(OPEN)) {
          held = trimmed.slice(OPEN.length);
          state = "think";
          continue;
        }
        if (OPEN.startsWith(trimmed)) return out;
        state = "text";
        out.push({ kind: "text", text: held });
        held = "";
        return out;
      }
      if (state === "think") {
        const close = held.indexOf(CLOSE);
        const end = close >= 0 ? close : held.length - tagStartAtEnd(held, CLOSE);
        if (end > 0) out.push({ kind: "reasoning", text: held.slice(0, end) });
        if (close < 0) {
          held = held.slice(end);
          return out;
        }
        held = held.slice(close + CLOSE.length);
        state = "lead";
        continue;
      }
      const answer = held.trimStart();
      held = "";
      if (answer) {
        state = "text";
        out.push({ kind: "text", text: answer });
      }
      return out;
    }
  }

  /** The content ended: what was held is sent as what it was (an unfinished `<think` is text; unclosed reasoning stays reasoning). */
  function end(): ContentPiece[] {
    const rest = held;
    held = "";
    if (!rest || state === "lead") return [];
    return [{ kind: state === "think" ? "reasoning" : "text", text: rest }];
  }

  return { push, end };
}

/** A whole content string split once. */
export function splitThinkTags(content: string): ContentPiece[] {
  const splitter = createThinkSplitter();
  return [...splitter.push(content), ...splitter.end()];
}
