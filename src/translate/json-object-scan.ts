/**
 * A scanner for the text of one JSON object that arrives in pieces (a tool call's arguments), under `tool-arguments.ts`.
 * It reads each character once, however the text is cut, and lets the text through as it comes, holding back only what
 * could not yet be closed without adding a value the text does not have: a key until its value starts, a comma until
 * what follows it, a number or a literal until it ends, an escape until it is whole, the object's own closing brace
 * until the end. So what it let through can always be made to parse with closing brackets alone.
 *
 * Its repairs, the only ones whose meaning is not in doubt: a control character inside a string (a raw newline or tab)
 * is escaped; a comma right before a closing bracket, or at the very end, is dropped; a Markdown code fence around the
 * whole text is dropped; the brackets still open where the text ends are closed when it ends after a complete value.
 * Anything else that is not one JSON object (another kind of value, single quotes, `True`, an unknown escape, text
 * after the object, a key without a value, a string or a literal cut short) breaks the scan.
 */

const enum At {
  /** Before the object: white space, or a fence (`FenceOpen`, `FenceInfo`). */
  Lead,
  FenceOpen,
  FenceInfo,
  /** After `{`, before its first key (safe). */
  FirstKey,
  /** After a comma in an object. */
  Key,
  KeyString,
  Colon,
  /** After a colon in an object, or a comma in an array. */
  Value,
  /** After `[`, before its first value (safe). */
  FirstValue,
  /** Inside a string value (safe). */
  ValueString,
  /** Inside an escape sequence of a key or a string value. */
  Escape,
  Number,
  Literal,
  /** After a complete value inside the object (safe). */
  AfterValue,
  /** After the object's own closing brace: only white space, or the fence's end, may follow. */
  AfterObject,
  Broken,
}

/** The states the text so far can be closed from with brackets (and a quote) alone. */
const isSafe = (at: At): boolean => at === At.FirstKey || at === At.FirstValue || at === At.ValueString || at === At.AfterValue;

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const NUMBER_CHAR = /[\d.eE+-]/;
const LITERALS: Readonly<Record<string, string>> = { t: "true", f: "false", n: "null" };
const SHORT_ESCAPES: Readonly<Record<string, string>> = { "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
/** Where a string ends or needs a look: its quote, an escape, a control character. */
const STRING_STOP = /["\\\u0000-\u001f]/g;

const isSpace = (char: string): boolean => char === " " || char === "\n" || char === "\r" || char === "\t";
const escapeControl = (char: string): string => SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** How the text ended. */
export type ScanEnd =
  /** It is one object (repaired, maybe): `rest` completes what was let through. */
  | { whole: true; rest: string }
  /**
   * It is not. `opened` says whether anything was let through (the object's `{` at least); `close` ends that text so
   * that it parses (the string it was in, the brackets open inside the object); `member` says whether the object
   * already holds a member, so that one more comes after a comma.
   */
  | { whole: false; opened: boolean; close: string; member: boolean };

export class JsonObjectScan {
  #at = At.Lead;
  /** The brackets open, outermost first (`{`, the object itself). */
  #stack: string[] = [];
  /** Text scanned but held back, and the offset in it of a comma a closing bracket would drop (-1: none). */
  #held = "";
  #comma = -1;
  #fenced = false;
  #ticks = 0;
  /** The number or literal being read, and the literal it must spell. */
  #token = "";
  #literal = "";
  /** The escape being read (`\`, `\u12`) and the string state it returns to. */
  #escape = "";
  #escapeOf = At.ValueString;
  /** Whether the object has a member yet. */
  #member = false;
  /** What the text let through needs to parse, as of the last safe point: a quote, the brackets open, a comma. */
  #safeInString = false;
  #safeDepth = 0;
  #safeMember = false;

  /** The text of `piece` that can go out now: as it came, but for the repairs' escapes and the characters they drop. */
  push(piece: string): string {
    let out = "";
    let from = 0;
    for (let i = 0; i < piece.length && this.#at !== At.Broken; i++) {
      if (this.#at === At.ValueString || this.#at === At.KeyString) {
        STRING_STOP.lastIndex = i;
        const stop = STRING_STOP.exec(piece);
        if (!stop) break;
        i = stop.index;
      }
      const char = piece[i]!;
      if (this.#at === At.Number && !NUMBER_CHAR.test(char)) {
        // The number ends here, a complete value: the character after it is read as what follows one.
        if (!NUMBER.test(this.#token)) {
          this.#at = At.Broken;
          break;
        }
        this.#at = At.AfterValue;
      }
      if (isSafe(this.#at)) {
        // What came before this character can go, whatever it leads to: the same text goes out however it is cut.
        out += this.#held + piece.slice(from, i);
        from = i;
        this.#settle();
      }
      const replacement = this.#step(char);
      if (replacement !== undefined) {
        this.#held += piece.slice(from, i) + replacement;
        if (replacement === ",") this.#comma = this.#held.length - 1;
        from = i + 1;
      }
    }
    if (this.#at === At.Broken) return out;
    if (!isSafe(this.#at)) {
      this.#held += piece.slice(from);
      return out;
    }
    out += this.#held + piece.slice(from);
    this.#settle();
    return out;
  }

  /** The text scanned but not let through yet (what a broken text held before it broke). */
  held(): string {
    return this.#held;
  }

  /** The text has ended: whether it was one object, and what completes what was let through. */
  end(): ScanEnd {
    const at = this.#at;
    if (at === At.Lead && !this.#fenced) return { whole: true, rest: "{}" };
    if (at === At.AfterObject) return { whole: true, rest: this.#held };
    const trailingComma = at === At.Key || (at === At.Value && this.#stack.at(-1) === "[");
    if ((isSafe(at) && at !== At.ValueString) || (at === At.Number && NUMBER.test(this.#token)) || trailingComma) {
      return { whole: true, rest: (trailingComma ? this.#withoutComma() : this.#held) + this.#closers(0, this.#stack.length) };
    }
    return { whole: false, opened: this.#safeDepth > 0, close: (this.#safeInString ? '"' : "") + this.#closers(1, this.#safeDepth), member: this.#safeMember };
  }

  /** What went out so far is all there is: nothing is held, and this is where a broken text would be closed. */
  #settle(): void {
    this.#held = "";
    this.#comma = -1;
    this.#safeInString = this.#at === At.ValueString;
    this.#safeDepth = this.#stack.length;
    this.#safeMember = this.#member;
  }

  #closers(from: number, to: number): string {
    let text = "";
    for (let depth = to - 1; depth >= from; depth--) text += this.#stack[depth] === "{" ? "}" : "]";
    return text;
  }

  #withoutComma(): string {
    return this.#comma < 0 ? this.#held : this.#held.slice(0, this.#comma) + this.#held.slice(this.#comma + 1);
  }

  /** Reads one character; returns what it becomes when that is not itself (an escape, or "" when it is dropped). */
  #step(char: string): string | undefined {
    switch (this.#at) {
      case At.Lead:
        if (isSpace(char)) return "";
        if (char === "`" && !this.#fenced) {
          this.#at = At.FenceOpen;
          this.#ticks = 1;
          return "";
        }
        if (char !== "{") return this.#break();
        this.#stack.push(char);
        this.#at = At.FirstKey;
        return undefined;
      case At.FenceOpen:
        if (char !== "`") return this.#break();
        if (++this.#ticks === 3) {
          this.#fenced = true;
          this.#at = At.FenceInfo;
        }
        return "";
      case At.FenceInfo:
        if (char === "\n") this.#at = At.Lead;
        else if (char === "{") {
          this.#at = At.Lead;
          return this.#step(char);
        } else if (!/[\w\- \t\r]/.test(char)) return this.#break();
        return "";
      case At.FirstKey:
      case At.Key:
        if (isSpace(char)) return undefined;
        if (char === "}") return this.#close(char);
        if (char !== '"') return this.#break();
        this.#comma = -1;
        this.#at = At.KeyString;
        return undefined;
      case At.KeyString:
        return this.#stringChar(char, At.Colon);
      case At.Colon:
        if (isSpace(char)) return undefined;
        if (char !== ":") return this.#break();
        this.#at = At.Value;
        return undefined;
      case At.Value:
      case At.FirstValue:
        if (isSpace(char)) return undefined;
        if (char === "]" && this.#stack.at(-1) === "[") return this.#close(char);
        return this.#value(char);
      case At.ValueString:
        return this.#stringChar(char, At.AfterValue);
      case At.Escape:
        return this.#escapeChar(char);
      case At.Number:
        // A character that ends the number was read as the `AfterValue` that follows it (`push`).
        this.#token += char;
        return undefined;
      case At.Literal:
        if (char !== this.#literal[this.#token.length]) return this.#break();
        this.#token += char;
        if (this.#token === this.#literal) this.#at = At.AfterValue;
        return undefined;
      case At.AfterValue:
        if (isSpace(char)) return undefined;
        if (char === "}" || char === "]") return this.#close(char);
        if (char !== ",") return this.#break();
        this.#at = this.#stack.at(-1) === "{" ? At.Key : At.Value;
        return ",";
      case At.AfterObject:
        if (isSpace(char)) return "";
        if (char !== "`" || !this.#fenced || this.#ticks === 3) return this.#break();
        this.#ticks++;
        return "";
      case At.Broken:
        return "";
    }
  }

  /** The first character of a value. */
  #value(char: string): string | undefined {
    if (this.#stack.length === 1) this.#member = true;
    this.#comma = -1;
    if (char === '"') {
      this.#at = At.ValueString;
      return undefined;
    }
    if (char === "{" || char === "[") {
      this.#stack.push(char);
      this.#at = char === "{" ? At.FirstKey : At.FirstValue;
      return undefined;
    }
    if (char === "-" || (char >= "0" && char <= "9")) {
      this.#at = At.Number;
      this.#token = char;
      return undefined;
    }
    const literal = LITERALS[char];
    if (!literal) return this.#break();
    this.#at = At.Literal;
    this.#literal = literal;
    this.#token = char;
    return undefined;
  }

  /** A closing bracket, which must match; a comma right before it is dropped. The object's own waits for the end. */
  #close(char: string): string | undefined {
    if ((char === "}") !== (this.#stack.at(-1) === "{")) return this.#break();
    this.#held = this.#withoutComma();
    this.#comma = -1;
    this.#stack.pop();
    if (this.#stack.length > 0) this.#at = At.AfterValue;
    else {
      this.#at = At.AfterObject;
      this.#ticks = 0;
    }
    return undefined;
  }

  #stringChar(char: string, after: At): string | undefined {
    if (char === '"') {
      this.#at = after;
      return undefined;
    }
    if (char !== "\\") return escapeControl(char);
    this.#escapeOf = this.#at;
    this.#at = At.Escape;
    this.#escape = char;
    return undefined;
  }

  #escapeChar(char: string): string | undefined {
    const escape = (this.#escape += char);
    const unicode = escape[1] === "u";
    if (escape.length === 2 ? !'"\\/bfnrtu'.includes(char) : !/[0-9a-fA-F]/.test(char)) return this.#break();
    if (!unicode || escape.length === 6) this.#at = this.#escapeOf;
    return undefined;
  }

  #break(): string {
    this.#at = At.Broken;
    return "";
  }
}
