import type { PatternSyntax } from "../../translate/server-quirks.js";

/**
 * The regex syntax of a JSON-Schema `pattern` that some servers' validators cannot compile (SPEC 12, Tool schemas a
 * chat upstream refuses). Clients write patterns for the ECMAScript dialect (JSON Schema's own); OpenAI validates
 * them with Python's `re` (research tools-2026-12.md 1: "is not a 'regex'"), which knows no `\p{...}` and no
 * `\u{...}`, and DeepSeek refuses even `\u0000` (lidge-jun/opencodex#5658).
 *
 * The local servers need none of this. llama.cpp turns tool schemas into a grammar, and since ggml-org/llama.cpp#26939
 * (2026-08-12, "gracefully fallback on unsupported regex patterns") a lookaround, an unanchored pattern or a PCRE
 * shorthand becomes "any JSON string" instead of failing the request (`common/json-schema-to-grammar.cpp`
 * `_visit_pattern`); a llama.cpp of 2026-08-22 answered 200 to tools with Claude Code 2.1.265's Artifact pattern,
 * `\u0000`, `\d`, `a++` and an unanchored pattern. LM Studio runs llama.cpp's engine; vLLM and
 * Ollama compile no tool schema for `tool_choice: "auto"`. Their kinds refuse nothing.
 *
 * The syntax names are the kinds' data (`translate/server-quirks.ts`); this file reads a pattern for them.
 */
const QUANTIFIER_END = new Set(["*", "+", "?", "}"]);

/**
 * Which of those a pattern uses. A small scanner rather than a regex over the text: it knows an escaped character
 * from a special one (`\(?=` is a literal parenthesis) and a quantifier from a group's `(?`.
 */
export function patternSyntaxOf(pattern: string): Set<PatternSyntax> {
  const found = new Set<PatternSyntax>();
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      const next = pattern[i + 1];
      if (next === "p" || next === "P") found.add("unicode-property");
      else if (next === "u" && pattern[i + 2] === "{") found.add("code-point-escape");
      else if (next === "u" && /^[0-9a-fA-F]{4}$/.test(pattern.slice(i + 2, i + 6))) found.add("unicode-escape");
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(" && pattern[i + 1] === "?") {
      const rest = pattern.slice(i + 2, i + 4);
      if (rest[0] === "=" || rest[0] === "!" || rest === "<=" || rest === "<!") found.add("lookaround");
      else if (rest[0] === ">") found.add("atomic-group");
      i++;
    } else if (c === "+" && i > 0 && QUANTIFIER_END.has(pattern[i - 1]!) && !isEscaped(pattern, i - 1)) found.add("possessive-quantifier");
  }
  return found;
}

/** Whether the character at `at` is escaped (an odd run of backslashes before it). */
function isEscaped(pattern: string, at: number): boolean {
  let slashes = 0;
  for (let i = at - 1; i >= 0 && pattern[i] === "\\"; i--) slashes++;
  return slashes % 2 === 1;
}

/** Whether a kind that refuses `refused` can compile `pattern`. */
export const patternAccepted = (pattern: string, refused: readonly PatternSyntax[]): boolean => {
  if (!refused.length) return true;
  const used = patternSyntaxOf(pattern);
  return !refused.some((syntax) => used.has(syntax));
};
