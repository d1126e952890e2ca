import type { IncomingMessage, ServerResponse } from "node:http";
import { H3, type H3Event } from "h3";
import type { GatewayHandler } from "./gateway-handler.js";

/**
 * h3's registered marker for "the handler already answered on the Node response" (the one its own
 * `fromNodeHandler` uses). We avoid `fromNodeHandler` because it rewrites `req.url`, and the gateway must
 * forward the client's query string byte for byte.
 */
const HANDLED = Symbol.for("h3.handled");

/**
 * srvx (under h3) calls `res.end(callback)` once more after every handled response. On a response that already
 * ended, Node builds an ERR_STREAM_ALREADY_FINISHED error, stack trace and all, only to pass it to a callback that
 * srvx ignores: 5% of the gateway's CPU per request in the profile. This stands in for `end` once it is
 * meaningless, and calls the callback the way srvx expects.
 */
function endEnded(this: ServerResponse, ...args: unknown[]): ServerResponse {
  const callback = args.find((arg): arg is () => void => typeof arg === "function");
  callback?.();
  return this;
}

/**
 * The h3 app: one handler for every request that runs the gateway flow on the Node request and response, so
 * upstream bytes are piped without web-stream conversion. Malformed URLs reach the gateway, which answers them in
 * the chat family's 404 shape like every other unknown path. Its `handler` is overridden rather than a route or
 * middleware registered: the gateway routes by family itself, and h3's router split every path for nothing.
 */
class GatewayApp extends H3 {
  constructor(private readonly gateway: GatewayHandler) {
    super({ allowMalformedURL: true, silent: true });
  }

  override async handler(event: H3Event): Promise<symbol> {
    const node = event.runtime?.node;
    if (!node?.res) throw new Error("gateway needs the Node.js runtime");
    // The server is node:http's HTTP/1.1 one, so the Node request is always an IncomingMessage.
    const res = node.res as ServerResponse;
    await this.gateway.handle(node.req as IncomingMessage, res);
    if (res.writableEnded) res.end = endEnded;
    return HANDLED;
  }
}

export function createApp(gateway: GatewayHandler): H3 {
  return new GatewayApp(gateway);
}
