import { ECHO_MODELS } from "../echo-turn.js";

// The family lists it (`Family.echo`) whenever the echo upstream is asked for models; the echo's replies
// (`echo.ts`) load on the first model call (issue 52).

/** The echo upstream's model list in OpenAI's shape. */
export function chatModelList() {
  return { object: "list", data: ECHO_MODELS.map((model) => ({ id: model, object: "model", created: 1735689600, owned_by: "gateway-echo" })) };
}
