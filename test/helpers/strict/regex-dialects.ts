/**
 * Which schema `pattern`s a server's validator cannot compile, as pure functions. Two dialects matter:
 * - OpenAI checks a function's `parameters` with Python's `jsonschema` and `format: "regex"`, that is Python's `re`
 *   (pleaseai/shunt#488: the "is not a 'regex'" wording is that library's; `\p{...}`, `\u{...}`, named groups
 *   `(?<name>...)` and unknown letter escapes fail there, lookaheads pass). Python 3.11's `re` takes possessive
 *   quantifiers and atomic groups, so they pass too. Lookaround is refused by a second check of OpenAI's, which
 *   `openai.ts` applies (docs/strict-fakes.md, OpenAI's regex rule).
 * - DeepSeek's validator refuses what SPEC 12 lists for it: lookaround, `\p{...}`, `\u{...}`, `\u0000`-style escapes,
 *   possessive quantifiers and atomic groups (Claude Code's `Artifact` pattern, which has a lookahead and `\p{Cc}`:
 *   Yachiyo-5i/xLyra#60; `^[^\u0000]*$`: lidge-jun/opencodex#5658).
 */

/** Letters Python's `re` takes after a backslash outside a class, and inside one (sre_parse `_escape`/`_class_escape`). */
const PYTHON_ESCAPES = new Set("abBdDfnrsStvwWZAxuUN");
const PYTHON_CLASS_ESCAPES = new Set("abdDfnrsStvwWxuUN");
const HEX_DIGITS: Record<string, number> = { x: 2, u: 4, U: 8 };

/** Why Python's `re.compile` refuses `pattern` (its own words), or undefined when it compiles. */
export function pythonReError(pattern: string): string | undefined {
  let inClass = false;
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      const next = pattern[i + 1];
      if (next === undefined) return "bad escape (end of pattern)";
      if (/[A-Za-z]/.test(next)) {
        if (!(inClass ? PYTHON_CLASS_ESCAPES : PYTHON_ESCAPES).has(next)) return `bad escape \\${next}`;
        const digits = HEX_DIGITS[next];
        if (digits !== undefined && !new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(pattern.slice(i + 2, i + 2 + digits))) return `incomplete escape \\${next}${pattern.slice(i + 2, i + 2 + digits)}`;
      }
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") {
      inClass = true;
      // A `]` right after `[` or `[^` is a literal.
      if (pattern[i + 1] === "^") i++;
      if (pattern[i + 1] === "]") i++;
    } else if (c === "(") {
      depth++;
      if (pattern[i + 1] === "?" && pattern[i + 2] === "<" && !"=!".includes(pattern[i + 3] ?? "")) return `unknown extension ?<${pattern[i + 3] ?? ""}`;
    } else if (c === ")") {
      if (--depth < 0) return "unbalanced parenthesis";
    }
  }
  if (inClass) return "unterminated character set";
  return depth > 0 ? "missing ), unterminated subpattern" : undefined;
}

/**
 * The constructs SPEC 12 names as refused by `openai`, `deepseek` and `openrouter` validators. An escape is one
 * wherever it stands; a group or a quantifier only outside a character class (`[*+]` is two literal characters).
 */
const REFUSED_CONSTRUCTS: readonly { name: string; test: RegExp; inClasses: boolean }[] = [
  { name: "lookaround", test: /\(\?(?:=|!|<=|<!)/, inClasses: false },
  { name: "unicode property escape", test: /\\[pP]\{/, inClasses: true },
  { name: "code point escape", test: /\\u\{/, inClasses: true },
  { name: "\\u escape", test: /\\u[0-9a-fA-F]{4}/, inClasses: true },
  { name: "atomic group", test: /\(\?>/, inClasses: false },
  { name: "possessive quantifier", test: /(?:[*+?]|\})\+/, inClasses: false },
];

/** `pattern` with every character class, and every escaped character, replaced by `_`. */
function outsideClasses(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      out += "_";
      i++;
    } else if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
      out += "_";
      // A `]` right after `[` or `[^` is a literal.
      if (pattern[i + 1] === "^") i++;
      if (pattern[i + 1] === "]") i++;
    } else out += c;
  }
  return out;
}

/** The first construct of SPEC 12's list that `pattern` uses, or undefined. Escaped backslashes are skipped. */
export function refusedConstruct(pattern: string): string | undefined {
  const unescaped = pattern.replace(/\\\\/g, "");
  const structure = outsideClasses(pattern);
  return REFUSED_CONSTRUCTS.find((construct) => construct.test.test(construct.inClasses ? unescaped : structure))?.name;
}

/** Whether `pattern` has lookaround (OpenAI's "regex lookaround is not supported"). */
export const hasLookaround = (pattern: string): boolean => REFUSED_CONSTRUCTS[0]!.test.test(outsideClasses(pattern));

/** A string as Python's `repr` writes it, which OpenAI's "is not a 'regex'" message quotes. */
export function pythonRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const body = [...text]
    .map((c) => {
      if (c === "\\") return "\\\\";
      if (c === quote) return `\\${c}`;
      if (c === "\n") return "\\n";
      if (c === "\r") return "\\r";
      if (c === "\t") return "\\t";
      const code = c.codePointAt(0)!;
      return code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, "0")}` : c;
    })
    .join("");
  return `${quote}${body}${quote}`;
}
