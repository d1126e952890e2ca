import type { ModelAliases } from "../../routing/model-aliases.js";
import { findTopLevelString, replaceString } from "../json-scan.js";

/** The model a request names and where it goes after aliases (SPEC section 7). */
export interface ModelChoice {
  /** What the client asked for; undefined when the request names no model. */
  asked: string | undefined;
  /** The catalog id an alias turned it into; undefined when no alias applied. */
  target: string | undefined;
  /** What is sent upstream and routed by: the target, else the asked id. */
  upstream: string | undefined;
}

/** Stage 6: the alias of the asked model, if one applies. */
export function aliasModel(asked: string | undefined, aliases: ModelAliases): ModelChoice {
  const target = asked !== undefined && aliases.any ? aliases.resolve(asked) : undefined;
  return { asked, target, upstream: target ?? asked };
}

/**
 * `bytes` with the top-level `model` value replaced by `target`: only the model's bytes change, every other byte goes
 * upstream as it came. The same buffer when there is nothing to replace.
 */
export function withModelBytes(bytes: Buffer | undefined, target: string | undefined): Buffer | undefined {
  if (!bytes || target === undefined) return bytes;
  const field = findTopLevelString(bytes, "model");
  return field ? replaceString(bytes, field, target) : bytes;
}
