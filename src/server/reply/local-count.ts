import type { WireFormat } from "../../formats/index.js";
import { countHubTokens } from "../../translate/count-tokens.js";
import type { Json, TranslateContext } from "../../translate/index.js";
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
  readonly #body: Json;
  readonly #tctx: TranslateContext;
  readonly #upstream: string;

  constructor(x: Exchange, format: WireFormat, body: Json, tctx: TranslateContext, upstream: string) {
    this.#x = x;
    this.#format = format;
    this.#body = body;
    this.#tctx = tctx;
    this.#upstream = upstream;
  }

  async answer(): Promise<void> {
    const format = this.#format;
    const count = format.count!;
    const { client } = format.translators.loaded ?? (await format.translators.load());
    const { request } = client.toHub(count.request(this.#body), this.#tctx);
    sendJson(this.#x, 200, count.reply(await countHubTokens(request)), { "x-gateway-upstream": this.#upstream });
  }
}
