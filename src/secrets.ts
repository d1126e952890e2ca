/**
 * The keys a process knows (the local key, the upstream keys it read or sent). Text that came from the network (an
 * upstream's error body, a reply, a header under `--verbose`) is shown or kept only through `redact`, because an
 * upstream may echo the key it was sent. Each holder has its own: the CLI one for its run, each gateway one.
 */
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
}
