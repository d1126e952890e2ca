import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/index.js";
import { claimPath, FORMAT_NAMES, FORMATS, registerFormat, type Format } from "../src/formats/index.js";
import { KINDS } from "../src/kinds/index.js";
import { pricedTokens } from "../src/pricing/tokens.js";
import { completionsFormat } from "./fifth-format/index.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir } from "./helpers/gateway.js";
import { chatHeaders, rawRequest } from "./helpers/http.js";

/**
 * "A fifth format is one folder and one line" (docs/ARCHITECTURE.md): a format registered in this test process
 * alone (`fifth-format/`) is seen by the config, the kinds' format lists, routing, the model lists, errors and
 * pricing, with no other edit.
 */

registerFormat(completionsFormat);
const COMPLETIONS = "completions" as Format;
const opened = closeAfterEach();

const REPLY = { id: "cmpl-1", object: "text_completion", created: 1700000000, model: "davinci-5", choices: [{ text: "hi there", index: 0, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 4 } } };

/** A server that speaks the fifth format alone, and a gateway in front of it. */
async function completionsOnly() {
  const upstream = opened(
    await startFakeUpstream({
      script: (request) =>
        request.path === "/v1/models" ? { json: { object: "list", data: [{ id: "davinci-5", object: "model", created: 1700000000, owned_by: "fifth" }] } } : { json: REPLY },
    }),
  );
  const gateway = opened(await startTestGateway(undefined, { file: { upstream: "fifth", upstreams: { fifth: { url: upstream.url, formats: ["completions"], key: "none" } } } }));
  return { upstream, gateway };
}

describe("a fifth format, registered in the test process", () => {
  it("is in the registry's names, and in the lists of the kinds that serve every format", () => {
    expect(FORMATS.at(-1)).toBe(completionsFormat);
    expect(FORMAT_NAMES).toEqual(["chat", "responses", "messages", "gemini", "completions"]);
    expect(KINDS.generic.defaults.formats).toContain(COMPLETIONS);
    expect(KINDS.litellm.defaults.formats).toContain(COMPLETIONS);
    expect(KINDS.openai.defaults.formats).not.toContain(COMPLETIONS);
  });

  it("is a format the config accepts, and every format's upstream serves it", () => {
    const config = loadConfig({ env: { GATEWAY_CONFIG_DIR: tempConfigDir({ upstreams: { fifth: { url: "http://127.0.0.1:9", formats: ["completions"] }, any: { url: "http://127.0.0.1:9" } } }) } });
    expect(config.upstreams.map((upstream) => [upstream.name, upstream.formats])).toEqual([
      ["fifth", ["completions"]],
      ["any", ["chat", "responses", "messages", "gemini", "completions"]],
    ]);
    expect(claimPath("POST", "/v1/completions", {}, { messages: "anthropic", gemini: "gemini" })?.format).toBe(completionsFormat);
  });

  it("is routed as it came to the upstream that serves it, its usage read and priced by its own convention", async () => {
    const { upstream, gateway } = await completionsOnly();
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "davinci-5", prompt: "hi" }) });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual(REPLY);
    expect(upstream.last().path).toBe("/v1/completions");
    const record = gateway.records.at(-1)!;
    expect([record.upstreamFormat, record.inputTokens, record.cacheReadTokens]).toEqual([COMPLETIONS, 10, 4]);
    // Its cached tokens are outside prompt_tokens: 10 + 4, where chat's convention would say 10.
    expect(pricedTokens(record)).toEqual({ input: 14, output: 2, cacheRead: 4, cacheWrite: 0 });
  });

  it("reaches its family's model list through an upstream that serves it alone", async () => {
    const { gateway } = await completionsOnly();
    const res = await rawRequest(gateway.url, { method: "GET", path: "/v1/models", headers: chatHeaders(LOCAL_KEY) });
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body) as { data: { id: string }[] }).data.map((model) => model.id)).toEqual(["davinci-5"]);
  });

  it("is refused in its family's envelope: its own body rules, and a route that cannot translate into it", async () => {
    const { gateway } = await completionsOnly();
    const missing = await rawRequest(gateway.url, { method: "POST", path: "/v1/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "davinci-5" }) });
    expect([missing.status, JSON.parse(missing.body)]).toEqual([400, { error: { message: 'Missing required field "prompt": it must be a string.', type: "invalid_request_error", param: "prompt", code: "missing_required_field" } }]);
    const chat = await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "davinci-5", messages: [{ role: "user", content: "hi" }] }) });
    expect([chat.status, JSON.parse(chat.body)]).toEqual([400, { error: { message: "The upstream fifth serves only completions requests, and the gateway cannot translate chat requests into those. Route this model to an upstream that serves chat or messages.", type: "invalid_request_error", param: null, code: "untranslatable_route" } }]);
  });
});
