/**
 * The one pattern language of the config (model ids, aliases, prices, routes' `model`, `client` and `tools`): `*` is
 * any run of characters, nothing else is special, and a pattern matches a whole string, case counting.
 */

const escapeRegExp = (text: string): string => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

/** Whether `text` holds a `*`, so that it is a pattern rather than an exact value. */
export const isPattern = (text: string): boolean => text.includes("*");

/** `claude-sonnet-4-5*` as an anchored regular expression. */
export const globRegExp = (pattern: string): RegExp => new RegExp(`^${pattern.split("*").map(escapeRegExp).join(".*")}$`, "s");

/** A test of whole strings against `pattern` (an exact value compares equal). */
export function globTest(pattern: string): (text: string) => boolean {
  if (!isPattern(pattern)) return (text) => text === pattern;
  const regExp = globRegExp(pattern);
  return (text) => regExp.test(text);
}

/**
 * Whether some string matches both patterns (`claude-*` and `*-haiku-*` do; `claude-*` and `gpt-*` do not): the two
 * patterns read as automata, walked together. A state is a position in each; a `*` may stay where it is on any
 * character or be passed without one. The characters worth trying are those the patterns name, plus one they do not.
 */
export function globsOverlap(a: string, b: string): boolean {
  const alphabet = [...new Set([...a.replaceAll("*", ""), ...b.replaceAll("*", ""), "\u0000"])];
  const seen = new Set<string>();
  const stack: [number, number][] = [[0, 0]];
  while (stack.length > 0) {
    const [i, j] = stack.pop()!;
    const key = `${i},${j}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (i === a.length && j === b.length) return true;
    if (a[i] === "*") stack.push([i + 1, j]);
    if (b[j] === "*") stack.push([i, j + 1]);
    for (const char of alphabet) {
      const nextA = a[i] === "*" ? i : a[i] === char ? i + 1 : -1;
      const nextB = b[j] === "*" ? j : b[j] === char ? j + 1 : -1;
      if (nextA >= 0 && nextB >= 0 && (nextA !== i || nextB !== j)) stack.push([nextA, nextB]);
    }
  }
  return false;
}

/**
 * Whether every string `inner` matches also matches `outer` (`claude*` covers `claude-*`, not the reverse). Each `*`
 * of `inner` becomes a character `outer` never names, which only a `*` of `outer` can match: `outer` matches that
 * string exactly when it matches whatever each of those `*` stands for.
 */
export const globCovers = (outer: string, inner: string): boolean => globRegExp(outer).test(inner.replaceAll("*", "\u0000"));
