import { vi, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";

/**
 * Codex's Responses WebSocket at the gateway (SPEC 12), driven by the `ws` client as Codex 0.171 speaks it: the
 * upgrade's guards, `response.create` messages served as the POST streams they stand for (here translated to a
 * chat-only upstream), continuations expanded with what the socket served, and a closed socket aborting its upstream.
 */

const opened = closeAfterEach();
const BETA = { "OpenAI-Beta": "responses_websockets=2026-02-06" };

async function pair() {
  const upstream = opened(await startFakeUpstream());
  const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { local: { url: upstream.url, formats: ["chat"] } } } }));
  return { upstream, gateway, wsUrl: (path: string) => `${gateway.url.replace("http", "ws")}${path}` };
}

/** The refusal an upgrade gets: its status and JSON body (never a 101). */
function refusal(url: string, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on("open", () => reject(new Error("the upgrade was accepted")));
    ws.on("error", () => undefined);
    ws.on("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Record<string, unknown> }));
    });
  });
}

/** An open socket with the local key, and each message it gets, parsed, in order. */
async function openSocket(url: string) {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${LOCAL_KEY}`, ...BETA } });
  const events: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  ws.on("message", (data) => {
    events.push(JSON.parse(String(data)) as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  });
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  /** Sends one message and resolves with its events, up to the one that ends it. */
  async function create(body: Record<string, unknown>, last = /^(response\.completed|response\.failed|error)$/) {
    const from = events.length;
    ws.send(JSON.stringify({ type: "response.create", ...body }));
    for (;;) {
      const end = events.slice(from).findIndex((event) => last.test(String(event.type)));
      if (end >= 0) return events.slice(from, from + end + 1);
      await new Promise<void>((wake) => waiters.push(wake));
    }
  }
  return { ws, events, create };
}

const user = (text: string) => ({ type: "message", role: "user", content: [{ type: "input_text", text }] });
const idOf = (events: Record<string, unknown>[]) => (events.at(-1)!.response as { id: string }).id;

describe("Codex's Responses WebSocket (SPEC 12)", () => {
  it("refuses an upgrade without the local key with 401 in the chat family's shape, and one on any other path at once with 426 in that path's family shape", async () => {
    const { wsUrl } = await pair();
    const noKey = await refusal(wsUrl("/v1/responses"), BETA);
    expect(noKey.status).toBe(401);
    expect(noKey.body).toMatchObject({ error: { type: "authentication_error", code: "invalid_api_key" } });
    const chat = await refusal(wsUrl("/v1/chat/completions"), { authorization: `Bearer ${LOCAL_KEY}` });
    expect(chat.status).toBe(426);
    expect(chat.body).toMatchObject({ error: { type: "invalid_request_error", code: "upgrade_required" } });
    const gemini = await refusal(wsUrl("/gemini/v1beta/models/gemini-2.5-pro:streamGenerateContent"), { "x-goog-api-key": LOCAL_KEY });
    expect(gemini.status).toBe(426);
    expect(gemini.body).toMatchObject({ error: { code: 426, status: "FAILED_PRECONDITION" } });
  });

  it("serves each response.create as the POST stream it stands for, a prewarm locally, and expands each continuation with the socket's earlier input and output", async () => {
    const { upstream, gateway, wsUrl } = await pair();
    const { create, ws } = await openSocket(wsUrl("/v1/responses"));
    const prewarm = await create({ model: "gpt-test", generate: false, instructions: "Be brief.", input: [user("first")] });
    expect(prewarm.map((event) => event.type)).toEqual(["response.created", "response.completed"]);
    expect(upstream.received).toHaveLength(0);
    const first = await create({ model: "gpt-test", previous_response_id: idOf(prewarm), instructions: "Be brief.", input: [] });
    expect(first[0]!.type).toBe("response.created");
    expect(first.at(-1)!.type).toBe("response.completed");
    expect(first.some((event) => event.type === "response.output_text.delta")).toBe(true);
    const second = await create({ model: "gpt-test", previous_response_id: idOf(first), instructions: "Be brief.", input: [user("second")] });
    expect(second.at(-1)!.type).toBe("response.completed");
    const messages = upstream.received.map((request) => (request.body!.messages as { role: string; content: unknown }[]).map((m) => `${m.role}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`));
    expect(messages[0]).toEqual(["system: Be brief.", "user: first"]);
    expect(messages[1]).toEqual(["system: Be brief.", "user: first", "assistant: fake: first", "user: second"]);
    ws.close();
    await vi.waitFor(() => expect(gateway.records).toHaveLength(2));
    expect(gateway.records.map((r) => [r.method, r.path, r.transport, r.status])).toEqual([
      ["POST", "/v1/responses", "websocket", 200],
      ["POST", "/v1/responses", "websocket", 200],
    ]);
  });

  it("a socket that closes mid-stream aborts its upstream request", async () => {
    const { upstream, wsUrl } = await pair();
    upstream.behaviour.stallAfterChunks = 2;
    const { ws, events } = await openSocket(wsUrl("/v1/responses"));
    ws.send(JSON.stringify({ type: "response.create", model: "gpt-test", input: [user("hang")] }));
    await vi.waitFor(() => expect(events.some((event) => event.type === "response.output_text.delta")).toBe(true));
    ws.close();
    await vi.waitFor(() => expect(upstream.received[0]!.abortedAt).toBeDefined());
  });

  it("a gateway that shuts down closes its open sockets instead of waiting on them", async () => {
    const { gateway, wsUrl } = await pair();
    const { ws } = await openSocket(wsUrl("/v1/responses"));
    const closed = new Promise((resolve) => ws.once("close", resolve));
    await gateway.close(0);
    await closed;
    expect(ws.readyState).toBe(WebSocket.CLOSED);
  });
});
