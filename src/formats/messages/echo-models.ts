import { ECHO_MODELS } from "../echo-turn.js";

// The family lists it (`Family.echo`) whenever the echo upstream is asked for models; the echo's replies
// (`echo.ts`) load on the first model call (issue 52).

/** The echo upstream's model list in Anthropic's shape. */
export function messagesModelList() {
  const data = ECHO_MODELS.map((model) => ({ type: "model", id: model, display_name: `Echo (${model})`, created_at: "2025-01-01T00:00:00Z" }));
  return { data, has_more: false, first_id: data[0]!.id, last_id: data[data.length - 1]!.id };
}
