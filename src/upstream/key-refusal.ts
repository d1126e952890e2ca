import { parseJsonObject } from "../parse-json.js";

/**
 * Error types that, at a given status, mean "this key is refused" although the status is not 401/403 (SPEC 12, Team
 * upstream). LiteLLM without a database compares a key with its master key only; any other key falls through to the
 * virtual-key lookup, which answers 400 `{"error":{"message":"No connected db.","type":"no_db_connection",...}}`
 * (BerriAI/litellm `litellm/proxy/auth/user_api_key_auth.py`: `raise ProxyException(message="No connected db.",
 * type=ProxyErrorTypes.no_db_connection, code=400)`). The same type with 503 is a database that is down: a retry may
 * help, so only the 400 is a refusal. Recognised whatever the entry's kind says: a LiteLLM is often added as
 * `generic`, and no other server answers with this type.
 */
const REFUSED_KEY_ERRORS: readonly { status: number; type: string }[] = [{ status: 400, type: "no_db_connection" }];

/** Whether an error body's `error.type` (LiteLLM's and OpenAI's envelope) names `type`. */
function errorType(bodyText: string): string | undefined {
  const error = parseJsonObject(bodyText)?.error;
  const type = typeof error === "object" && error !== null ? (error as { type?: unknown }).type : undefined;
  return typeof type === "string" ? type : undefined;
}

/** Whether an answer to a request that carried a key says the key was refused: 401, 403, or a kind's own word for it. */
export function refusesKey(status: number, bodyText: string): boolean {
  if (status === 401 || status === 403) return true;
  if (!REFUSED_KEY_ERRORS.some((refusal) => refusal.status === status)) return false;
  const type = errorType(bodyText);
  return REFUSED_KEY_ERRORS.some((refusal) => refusal.status === status && refusal.type === type);
}

/** Whether an answer with `status` may be a refused key that only its body tells (worth reading the body for). */
export const mayRefuseKey = (status: number): boolean => status === 401 || status === 403 || REFUSED_KEY_ERRORS.some((refusal) => refusal.status === status);
