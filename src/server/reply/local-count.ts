import type { WireFormat } from "../../formats/index.js";
import { countHubTokens } from "../../translate/count-tokens.js";
import type { HubRequest } from "../../translate/hub.js";
import type { Exchange } from "../exchange.js";
import { sendJson } from "./send-json.js";

/**
 * `count_tokens` or Gemini `:countTokens` on an upstream that does not serve the format (SPEC 10 rule 6): the
 * gateway counts the request as it would be translated, and answers in the client's shape (`WireFormat.count`).
 * Always 200: Claude Code's `/context` breaks on an error here, and a missing count only makes Gemini CLI guess.
 */
export class LocalCount {
  readonly #x: Exchange;
  readonly #format: WireFormat;
  readonly #hub: HubRequest;
  readonly #upstream: string;

  /** `hub`: the request's own (`ClientRequest.hub`), which a `minInputTokens` rule may have made already. */
  constructor(x: Exchange, format: WireFormat, hub: HubRequest, upstream: string) {
    this.#x = x;
    this.#format = format;
    this.#hub = hub;
    this.#upstream = upstream;
  }

  async answer(): Promise<void> {
    sendJson(this.#x, 200, this.#format.count!.reply(await countHubTokens(this.#hub)), { "x-gateway-upstream": this.#upstream });
  }
}
