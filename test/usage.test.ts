import { beforeEach, describe, expect, it } from "vitest";
import { replyPieces, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, useGatewayPair, type TestGateway } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";
import { formatRequestLine } from "../src/request-log/request-line.js";

let upstream: FakeUpstream;
let gateway: TestGateway;
const pair = useGatewayPair();
beforeEach(async () => ({ upstream, gateway } = await pair.start()));

const prompt = "count these words";
const outputTokens = replyPieces(prompt).length;

describe("usage in the request record", () => {
  it.each([
    ["chat", false],
    ["chat", true],
    ["messages", false],
    ["messages", true],
  ] as const)("equals what the upstream reported (%s, stream %s)", async (family, stream) => {
    const isChat = family === "chat";
    const body = isChat
      ? { model: "gpt-fake", stream, messages: [{ role: "user", content: prompt }] }
      : { model: "claude-fake", max_tokens: 9, stream, messages: [{ role: "user", content: prompt }] };
    const before = gateway.records.length;
    const res = await rawRequest(gateway.url, { method: "POST", path: isChat ? "/v1/chat/completions" : "/v1/messages", headers: isChat ? chatHeaders(LOCAL_KEY) : messagesHeaders(LOCAL_KEY), body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    await expect.poll(() => gateway.records.length).toBe(before + 1);
    const record = gateway.records.at(-1)!;
    const cache = isChat ? { cacheReadTokens: 4, cacheWriteTokens: undefined } : { cacheReadTokens: 4, cacheWriteTokens: 3 };
    expect(record).toMatchObject({ model: body.model, status: 200, inputTokens: 11, outputTokens, ...cache, outcome: "complete", family });
    expect(record.ttfbMs).toBeGreaterThanOrEqual(0);
    const cacheText = isChat ? "read 4" : "read 4, write 3";
    expect(formatRequestLine(record)).toMatch(new RegExp(`^POST /v1/\\S+ ${body.model} 200 \\d+ms ttfb \\d+ms tokens 11/${outputTokens} \\(cache ${cacheText}\\)$`));
  });
});
