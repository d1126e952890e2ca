/**
 * The keys a process knows (the local key, the upstream keys it read or sent). Text that came from the network (an
 * upstream's error body, a reply, a header under `--verbose`) is shown or kept only through `redact`, because an
 * upstream may echo the key it was sent. Each holder has its own: the CLI one for its run, each gateway one.
 */
/**
 * Header values with `redact` applied to each (a repeated header's values one by one): headers are redacted by name
 * elsewhere, but an upstream may echo a key in any of them (`location`, `www-authenticate`, its own).
 */
export function redactValues<T extends string | string[]>(headers: Record<string, T>, redact: (text: string) => string): Record<string, T> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? value.map(redact) : redact(value as string);
  return out as Record<string, T>;
}

export class Secrets {
  readonly #known = new Set<string>();

  /** Remembers a key so that `redact` hides it. Short values are ignored: they would mangle ordinary text. */
  remember(value: string | undefined): void {
    if (value && value.length >= 8) this.#known.add(value);
  }

  /** `text` with every known key replaced by `***`. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.#known) if (out.includes(secret)) out = out.split(secret).join("***");
    return out;
  }

  /**
   * `redact` for text that arrives in pieces (a streamed reply): a key can be cut across two pieces, so the end of
   * each piece that could begin a key waits for the next one, and `end()` writes what still waits.
   */
  redactor(write: (text: string) => void): { write(piece: string): void; end(): void } {
    let held = "";
    return {
      write: (piece) => {
        const text = this.redact(held + piece);
        const keep = this.#keyStartAtEnd(text);
        held = text.slice(text.length - keep);
        if (text.length > keep) write(text.slice(0, text.length - keep));
      },
      end: () => {
        if (held) write(held);
        held = "";
      },
    };
  }

  /** How many characters at the end of `text` could be the start of a known key. */
  #keyStartAtEnd(text: string): number {
    let longest = 0;
    for (const secret of this.#known) {
      for (let length = Math.min(secret.length - 1, text.length); length > longest; length--) {
        if (text.endsWith(secret.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }
}
