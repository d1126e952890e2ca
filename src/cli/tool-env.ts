import { localKeyOf, localUrls, type CommandContext } from "./context.js";

/** A POSIX shell word: `value` in single quotes, each quote in it closed, escaped and reopened. */
export const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/**
 * The variables every tool needs to reach the gateway on `port` (SPEC section 6, `gateway env`); with `keys: false`
 * the base URLs only (`gateway run --own-login`: a tool keeps its own credential, SPEC 11). Its own module, apart
 * from the `env` command's, so that `gateway run` loads no commander (issue 52, `gateway run`'s own cost).
 */
export function toolEnv(ctx: CommandContext, port: number, keys = true): Record<string, string> {
  const urls = localUrls(port, ctx.config);
  const bases = { OPENAI_BASE_URL: urls.openai, ANTHROPIC_BASE_URL: urls.anthropic, GOOGLE_GEMINI_BASE_URL: urls.gemini };
  if (!keys) return bases;
  const key = localKeyOf(ctx);
  return {
    OPENAI_BASE_URL: urls.openai,
    OPENAI_API_KEY: key,
    ANTHROPIC_BASE_URL: urls.anthropic,
    ANTHROPIC_API_KEY: key,
    GOOGLE_GEMINI_BASE_URL: urls.gemini,
    GEMINI_API_KEY: key,
  };
}
