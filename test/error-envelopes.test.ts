import { describe, expect, it } from "vitest";
import { apiError, type ErrorFields } from "../src/errors/index.js";
import { formatNamed, type Format } from "../src/formats/index.js";
import { decodeEvents, encodeEvent } from "../src/sse/sse.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { chatSse, chunk, messagesSse, startFakeUpstream } from "./helpers/fake-upstream.js";
import { freePort } from "./helpers/free-port.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { messagesHeaders, rawRequest } from "./helpers/http.js";
import { testContext } from "./helpers/translate.js";
import { clientOf } from "./helpers/format-translators.js";

/**
 * One failure, one `error.type`, whatever the route (issue 48): every error envelope and stream error event comes
 * from the client family's one renderer (`formats/error-renderer.ts`), so an answer the gateway wrote, a relayed
 * stream it ended and a translated stream it ended say the same.
 */

const opened = closeAfterEach();

/** Chat's own word for a 429, which only a chat client keeps (SPEC 10 rule 5). */
const QUOTA: ErrorFields = { status: 429, type: "insufficient_quota", message: "You exceeded your current quota.", param: null, code: "insufficient_quota" };

/** The events a translated stream to a client of `format` ends with when it fails with `error`, as written. */
function translatedFailure(format: Format, error: ErrorFields): string {
  const stream = clientOf(format).streamFromHub({}, testContext());
  stream.start();
  return stream.fail(error).map(encodeEvent).join("");
}

describe("a translated stream's error event is its family's", () => {
  it.each([
    ["messages", 'event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"You exceeded your current quota."}}\n\n'],
    ["chat", 'data: {"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}\n\n'],
    ["gemini", 'data: {"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED"}}\n\n'],
  ] as const)("%s: the same bytes as the passthrough's event, in the family's words", (format, expected) => {
    expect(translatedFailure(format, QUOTA)).toBe(expected);
    expect(formatNamed(format).errors.streamEvent(QUOTA)).toBe(expected);
  });

  it("the JSON answer is the event's data", () => {
    const error = apiError(502, "The upstream connection broke in the middle of the reply. Try again.", { code: "upstream_error" });
    for (const format of ["messages", "chat", "gemini"] as const) {
      const { errors } = formatNamed(format);
      expect(JSON.parse(errors.json(error))).toEqual(errors.event(error).data);
    }
  });
});

const BROKEN = { type: "error", error: { type: "api_error", message: "The upstream connection broke in the middle of the reply. Try again." } };
const BODY = (stream: boolean) => JSON.stringify({ model: "m", max_tokens: 10, stream, messages: [{ role: "user", content: "hi" }] });

/** A gateway whose one upstream serves only `format` at `url`. */
const gatewayTo = async (url: string, format: Format) =>
  opened(await startTestGateway(undefined, { file: { upstream: "u", upstreams: { u: { url, formats: [format], key: "none", messagesSegment: "", retries: 0 } } } }));

describe("a messages client gets one error type whatever the route", () => {
  it("an upstream that breaks mid-stream: the same last event relayed (messages upstream) and translated (chat upstream)", async () => {
    const messagesUpstream = opened(
      await startFakeUpstream({
        script: () => ({ chunks: [messagesSse([{ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", content: [], model: "m", usage: { input_tokens: 1, output_tokens: 0 } } } as never]), "event: content_block_start\ndata: {"], die: true }),
      }),
    );
    const chatUpstream = opened(await startFakeUpstream({ script: () => ({ chunks: [chatSse([chunk({ role: "assistant", content: "" }), chunk({ content: "partial" })], false), 'data: {"choices":[{"index":0,"delta":{"content":"cut'], die: true }) }));
    const lastEvents = [];
    for (const [url, format] of [[messagesUpstream.url, "messages"], [chatUpstream.url, "chat"]] as const) {
      const gateway = await gatewayTo(url, format);
      const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: BODY(true) });
      expect(res.status).toBe(200);
      const last = decodeEvents(res.body).at(-1)!;
      lastEvents.push(last);
      expect(last.event).toBe("error");
      expect(JSON.parse(last.data)).toEqual(BROKEN);
    }
    expect(lastEvents[0]).toEqual(lastEvents[1]);
  });

  it("an upstream that cannot be reached: the same JSON answer relayed and translated", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const bodies = [];
    for (const format of ["messages", "chat"] as const) {
      const gateway = await gatewayTo(url, format);
      const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: BODY(false) });
      expect(res.status).toBe(502);
      bodies.push(JSON.parse(res.body));
    }
    expect(bodies[0]).toEqual(bodies[1]);
    expect(bodies[0].error.type).toBe("api_error");
  });
});
