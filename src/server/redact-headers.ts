/** Header names whose values are credentials or session state, whatever vendor invented them. */
const SECRET_NAME = /auth|key|token|secret|cookie|session|signature|credential|password/i;

/**
 * Headers as one printable object, every value that could be a credential replaced: what `--verbose` shows.
 * Names are matched loosely on purpose: printing `[redacted]` for a harmless header costs nothing, printing a key
 * costs the user their key.
 */
export function redactHeaders(headers: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = SECRET_NAME.test(name) ? "[redacted]" : Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}
