// The translating floor: the least a Node.js proxy can do to serve Anthropic's messages format from a chat-only
// upstream, to show what the goal for translation asks. The floor proxy's shape (`floor-proxy.mjs`: `Pool.dispatch`,
// abort on client close, backpressure through the handler's return value) plus one parse of the request, a chat
// body made of its text, tool calls and tool results, one parse per upstream event and one `JSON.stringify` per
// client event: text and tool calls, nothing else. No checks, no errors in the client's format, no usage record, no
// keep-alive, no reasoning, no repair; it serves the bench's replies and nothing more.
import { createServer } from "node:http";
import { StringDecoder } from "node:string_decoder";
import { Pool } from "undici";

const pool = new Pool(process.env.BENCH_UPSTREAM_URL, { keepAliveTimeout: 60_000 });
const upstreamHeaders = { "content-type": "application/json", authorization: `Bearer ${process.env.BENCH_UPSTREAM_KEY}` };
const STOP = { stop: "end_turn", tool_calls: "tool_use", length: "max_tokens" };

const sse = (type, data) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
const textOf = (content) => (typeof content === "string" ? content : content.map((part) => part.text ?? "").join(""));

const partsOf = (content, type) => (typeof content === "string" ? (type === "text" ? [{ text: content }] : []) : content.filter((part) => part.type === type));

/**
 * The messages request as a chat request: system and turns as text, tool calls and their results as chat's (a long
 * conversation is mostly tool results: the upstream must be sent them, as the gateway sends them), tools as functions.
 */
function chatBody(body) {
  const messages = body.system ? [{ role: "system", content: textOf(body.system) }] : [];
  for (const { role, content } of body.messages) {
    for (const result of partsOf(content, "tool_result")) messages.push({ role: "tool", tool_call_id: result.tool_use_id, content: textOf(result.content) });
    const text = textOf(partsOf(content, "text"));
    const calls = partsOf(content, "tool_use").map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.input) } }));
    if (text || calls.length) messages.push({ role, content: text || null, ...(calls.length ? { tool_calls: calls } : {}) });
  }
  const tools = body.tools?.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.input_schema } }));
  return JSON.stringify({ model: body.model, messages, max_tokens: body.max_tokens, stream: body.stream === true, ...(body.stream ? { stream_options: { include_usage: true } } : {}), ...(tools ? { tools } : {}) });
}

/** A whole chat reply as a messages reply. */
function messagesReply(chat, model) {
  const choice = chat.choices[0];
  const content = choice.message.content ? [{ type: "text", text: choice.message.content }] : [];
  for (const call of choice.message.tool_calls ?? []) content.push({ type: "tool_use", id: call.id, name: call.function.name, input: JSON.parse(call.function.arguments) });
  const usage = { input_tokens: chat.usage?.prompt_tokens ?? 0, output_tokens: chat.usage?.completion_tokens ?? 0 };
  return JSON.stringify({ id: `msg_${chat.id}`, type: "message", role: "assistant", model, content, stop_reason: STOP[choice.finish_reason] ?? "end_turn", stop_sequence: null, usage });
}

/** A chat stream as messages events, one content block at a time. */
function streamTranslator(model) {
  let index = -1;
  let open;
  let finish = "stop";
  let outputTokens = 0;
  function close() {
    if (!open) return "";
    open = undefined;
    return sse("content_block_stop", { type: "content_block_stop", index });
  }
  function start(kind, block) {
    const closed = close();
    open = kind;
    return `${closed}${sse("content_block_start", { type: "content_block_start", index: ++index, content_block: block })}`;
  }
  return {
    opening: () =>
      sse("message_start", { type: "message_start", message: { id: "msg_floor", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } } }),
    event(chunk) {
      outputTokens = chunk.usage?.completion_tokens ?? outputTokens;
      const choice = chunk.choices[0];
      if (!choice) return "";
      if (choice.finish_reason) finish = choice.finish_reason;
      let out = "";
      const { content, tool_calls: calls } = choice.delta;
      if (content) {
        if (open !== "text") out += start("text", { type: "text", text: "" });
        out += sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: content } });
      }
      for (const call of calls ?? []) {
        if (call.id) out += start("tool", { type: "tool_use", id: call.id, name: call.function.name, input: {} });
        if (call.function?.arguments) out += sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: call.function.arguments } });
      }
      return out;
    },
    closing: () =>
      `${close()}${sse("message_delta", { type: "message_delta", delta: { stop_reason: STOP[finish] ?? "end_turn", stop_sequence: null }, usage: { output_tokens: outputTokens } })}${sse("message_stop", { type: "message_stop" })}`,
  };
}

function serve(res, raw) {
  const body = JSON.parse(raw);
  const stream = body.stream === true;
  const translator = streamTranslator(body.model);
  const decoder = new StringDecoder("utf8");
  const parts = [];
  let pending = "";
  let abort;
  res.on("close", () => {
    if (!res.writableFinished) abort?.(new Error("client closed"));
  });
  pool.dispatch(
    { path: "/v1/chat/completions", method: "POST", headers: upstreamHeaders, body: chatBody(body) },
    {
      onConnect(abortRequest) {
        abort = abortRequest;
      },
      onHeaders(statusCode, _rawHeaders, resume) {
        res.writeHead(statusCode, { "content-type": stream ? "text/event-stream; charset=utf-8" : "application/json" });
        if (stream) res.write(translator.opening());
        res.on("drain", resume);
        return true;
      },
      onData(chunk) {
        if (!stream) {
          parts.push(chunk);
          return true;
        }
        pending += decoder.write(chunk);
        let out = "";
        for (let end = pending.indexOf("\n\n"); end !== -1; end = pending.indexOf("\n\n")) {
          const event = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const at = event.indexOf("data: ");
          const data = at === -1 ? "[DONE]" : event.slice(at + 6);
          if (data !== "[DONE]") out += translator.event(JSON.parse(data));
        }
        return out === "" || res.write(out);
      },
      onComplete() {
        res.end(stream ? translator.closing() : messagesReply(JSON.parse(Buffer.concat(parts).toString("utf8")), body.model));
      },
      onError() {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      },
    },
  );
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => serve(res, Buffer.concat(chunks).toString("utf8")));
});
server.keepAliveTimeout = 60_000;
server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => console.log(`port ${server.address().port}`));
process.on("SIGTERM", () => process.exit(0));
