/** An element with optional text and class: the page builds its nodes with this, never with innerHTML. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/**
 * `text` with a line-break opportunity after each `/` and `:`, so that a long id (`accounts/fireworks/models/…`,
 * `openrouter/anthropic/…:thinking`) wraps between its parts rather than inside one.
 */
export function breakable(text: string): Node[] {
  return text.split(/(?<=[/:])/).flatMap((part, i) => (i === 0 ? [document.createTextNode(part)] : [document.createElement("wbr"), document.createTextNode(part)]));
}
