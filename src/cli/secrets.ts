/**
 * The keys this CLI process knows (the upstream key, the local key). Anything printed that came from the network
 * (an upstream's error body, a reply, a header under `--verbose`) goes through `redact` first, because an
 * upstream may echo the key it was sent. One CLI run is one process, so one set serves the whole run.
 */
const known = new Set<string>();

/** Remembers a key so that `redact` hides it. Short values are ignored: they would mangle ordinary text. */
export function rememberSecret(value: string | undefined): void {
  if (value && value.length >= 8) known.add(value);
}

/** `text` with every known key replaced by `***`. */
export function redact(text: string): string {
  let out = text;
  for (const secret of known) if (out.includes(secret)) out = out.split(secret).join("***");
  return out;
}
