/**
 * The tool behind a user agent, without its version, so one tool's requests group together across upgrades:
 * `OpenAI/JS 6.9.1` → `OpenAI/JS`, `claude-cli/1.0.83 (external, cli)` → `claude-cli`, `curl/8.5.0` → `curl`.
 */
export function clientName(userAgent: string | undefined): string {
  const product = userAgent?.trim().split(/[\s(]/, 1)[0];
  if (!product) return "unknown";
  const slash = product.indexOf("/");
  return slash > 0 && /\d/.test(product[slash + 1] ?? "") ? product.slice(0, slash) : product;
}
