/** A body for people to read: JSON pretty-printed when it parses, else the text as it came. Used by the page too. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
