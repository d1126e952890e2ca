import { H3, type H3Event, type HTTPError } from "h3";
import { toNodeHandler } from "h3/node";
import { registerDashboard, DATA_HEADERS, type DashboardOptions } from "../dashboard/dashboard-routes.js";
import { notFound, toApiError } from "../errors/index.js";
import { chatFamily } from "../formats/index.js";

export interface AppOptions extends DashboardOptions {
  /** The gateway's request ids, for the `x-request-id` of an error. */
  nextRequestId: () => string;
  onInternalError: (error: unknown) => void;
}

/**
 * The dashboard as an h3 app (its files, its data API, its live feed), with
 * typed route handlers and one error handler that answers in the chat shape with an `x-request-id`. The proxy path
 * never enters it: `gateway-handler.ts` serves model traffic on the Node request and response directly, so upstream
 * bytes are piped without a web-stream conversion, and hands everything else to this app through h3's public
 * `toNodeHandler`. `/health` never enters it either: the handler answers it, so that a gateway is healthy before
 * h3 loads.
 */
export function createApp(options: AppOptions) {
  const app = new H3({
    silent: true,
    allowMalformedURL: true,
    onError(error: HTTPError, event: H3Event) {
      const cause = error.cause instanceof Error ? error.cause : error.status === 404 ? notFound(`Nothing is served at ${event.url.pathname}.`) : error;
      const http = toApiError(cause, options.onInternalError);
      return new Response(chatFamily.errors.json(http), {
        status: http.status,
        headers: { ...DATA_HEADERS, "content-type": "application/json", "x-request-id": options.nextRequestId() },
      });
    },
  });
  registerDashboard(app, options);
  return toNodeHandler(app);
}

export type AppHandler = ReturnType<typeof createApp>;
