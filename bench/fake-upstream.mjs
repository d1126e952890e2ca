// The benchmark's upstream: as fast as node:http allows, fixed replies in all three wire formats, and model lists.
// It reads and parses every request body whole, as a real upstream must.
// Streaming requests (`"stream":true`, or Gemini's `:streamGenerateContent`) get 20 SSE chunks back to back, then the
// family's closing events. What a request asks for is read from its query or, because a translated request's path
// is the gateway's own, from its model: `?chunks=<n>&delay=<ms>` or the model `slow-<ms>-<n>` (n chunks, ms apart);
// the model `tools` (chat only) streams 4 tool calls whose arguments come in 40 pieces, 10 each. A base path of
// `/lag-<ms>` (a second upstream on the same server) answers model lists that much later.
import { createServer } from "node:http";

const KEY = process.env.BENCH_UPSTREAM_KEY;
const TEXT = "hello from the bench";
const TOOL_CALLS = 4;
const PIECES_PER_CALL = 10;
const toolArgPieces = (call) => Array.from({ length: PIECES_PER_CALL }, (_, i) => (i === 0 ? `{"path":"src/file-${call}.ts",` : i === PIECES_PER_CALL - 1 ? `"n":${call}}` : `"k${i}":"v${i}",`));
// Every chunk but the last carries `"usage":null`, as OpenAI's do when `stream_options.include_usage` asks for the
// usage (the gateway asks on every translated stream; the usage comes in the last chunk).
const chatChunk = (delta, finish = null) => `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":${JSON.stringify(delta)},"finish_reason":${finish ? `"${finish}"` : "null"}}],"usage":null}\n\n`;
const families = {
  chat: {
    key: (req) => req.headers.authorization?.slice(7),
    json: JSON.stringify({ id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: TEXT }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }),
    chunk: (i) => chatChunk({ content: `tok${i} ` }),
    end: `${chatChunk({}, "stop")}data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}\n\ndata: [DONE]\n\n`,
    // 4 calls: the first piece of each names the call, the rest carry only arguments (how OpenAI streams them).
    toolChunks: Array.from({ length: TOOL_CALLS }, (_, call) =>
      toolArgPieces(call).map((piece, i) => chatChunk({ tool_calls: [{ index: call, ...(i === 0 ? { id: `call_${call}`, type: "function", function: { name: "read_file", arguments: piece } } : { function: { arguments: piece } }) }] })),
    ).flat(),
    toolEnd: `${chatChunk({}, "tool_calls")}data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":40,"total_tokens":50}}\n\ndata: [DONE]\n\n`,
    models: JSON.stringify({ object: "list", data: [{ id: "m", object: "model", created: 1, owned_by: "bench" }] }),
  },
  messages: {
    key: (req) => req.headers["x-api-key"],
    json: JSON.stringify({ id: "m", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: TEXT }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } }),
    chunk: (i) => `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tok${i} "}}\n\n`,
    end: 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":20}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n',
    models: JSON.stringify({ data: [{ id: "m", type: "model", display_name: "m", created_at: "2025-01-01T00:00:00Z" }], has_more: false, first_id: "m", last_id: "m" }),
  },
  gemini: {
    key: (req) => req.headers["x-goog-api-key"],
    json: JSON.stringify({ candidates: [{ content: { parts: [{ text: TEXT }], role: "model" }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }, modelVersion: "m" }),
    chunk: (i) => `data: {"candidates":[{"content":{"parts":[{"text":"tok${i} "}],"role":"model"},"index":0}],"modelVersion":"m"}\r\n\r\n`,
    end: 'data: {"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":20,"totalTokenCount":30},"modelVersion":"m"}\r\n\r\n',
    models: JSON.stringify({ models: [{ name: "models/m", displayName: "m", supportedGenerationMethods: ["generateContent"] }] }),
  },
};
const familyOf = (url) => (url.includes("/gemini/") ? families.gemini : url.includes("/anthropic/") ? families.messages : families.chat);
const LAG = /^\/lag-(\d+)/;
const SLOW_MODEL = /^slow-(\d+)-(\d+)$/;

/** Streams `chunks` (strings) `delay` ms apart, then `end`. */
function stream(res, chunks, end, delay) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let i = 0;
  // Chunk i leaves at start + i * delay, not delay after the one before: timer drift must not add up, or it
  // would show as lateness of every target alike.
  const start = performance.now();
  const next = () => {
    if (res.destroyed) return;
    if (i === chunks.length) return res.end(end);
    res.write(chunks[i++]);
    if (delay) setTimeout(next, Math.max(0, start + i * delay - performance.now()));
    else next();
  };
  next();
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const lag = Number(req.url.match(LAG)?.[1] ?? 0);
    const url = lag ? req.url.replace(LAG, "") : req.url;
    const family = familyOf(url);
    if (family.key(req) !== KEY) {
      res.writeHead(401, { "content-type": "application/json" });
      return res.end('{"error":{"message":"bad key"}}');
    }
    if (req.method === "GET") {
      return setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(family.models) });
        res.end(family.models);
      }, lag);
    }
    // Every body is parsed whole, as a real upstream does: what a long conversation costs the upstream is in
    // the fake alone's time, which every target's is measured against.
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString());
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      return res.end('{"error":{"message":"the body is not JSON"}}');
    }
    if (!url.includes(":streamGenerateContent") && body.stream !== true) {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(family.json) });
      return res.end(family.json);
    }
    if (family === families.chat && body.model === "tools") return stream(res, family.toolChunks, family.toolEnd, 0);
    const query = new URL(url, "http://x").searchParams;
    const slow = typeof body.model === "string" ? body.model.match(SLOW_MODEL) : null;
    const delay = Number(slow?.[1] ?? query.get("delay") ?? 0);
    const count = Number(slow?.[2] ?? query.get("chunks") ?? 20);
    stream(res, Array.from({ length: count }, (_, i) => family.chunk(i)), family.end, delay);
  });
});
server.keepAliveTimeout = 60_000;
// A queue as long as the gateway's, so no proxy's burst of upstream connections waits for a SYN retry here.
server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => console.log(`port ${server.address().port}`));
