// The benchmark's upstream: as fast as node:http allows, fixed replies in all three wire formats.
// Streaming requests (`"stream":true`, or Gemini's `:streamGenerateContent`) get `?chunks=<n>` SSE chunks (20 unless
// asked), `?delay=<ms>` apart, then the family's closing events.
import { createServer } from "node:http";

const KEY = process.env.BENCH_UPSTREAM_KEY;
const TEXT = "hello from the bench";
const families = {
  chat: {
    key: (req) => req.headers.authorization?.slice(7),
    json: JSON.stringify({ id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: TEXT }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }),
    chunk: (i) => `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"tok${i} "},"finish_reason":null}]}\n\n`,
    end: 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}\n\ndata: [DONE]\n\n',
  },
  messages: {
    key: (req) => req.headers["x-api-key"],
    json: JSON.stringify({ id: "m", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: TEXT }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } }),
    chunk: (i) => `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tok${i} "}}\n\n`,
    end: 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":20}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n',
  },
  gemini: {
    key: (req) => req.headers["x-goog-api-key"],
    json: JSON.stringify({ candidates: [{ content: { parts: [{ text: TEXT }], role: "model" }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }, modelVersion: "m" }),
    chunk: (i) => `data: {"candidates":[{"content":{"parts":[{"text":"tok${i} "}],"role":"model"},"index":0}],"modelVersion":"m"}\r\n\r\n`,
    end: 'data: {"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":20,"totalTokenCount":30},"modelVersion":"m"}\r\n\r\n',
  },
};
const familyOf = (url) => (url.includes("/gemini/") ? families.gemini : url.includes("/anthropic/") ? families.messages : families.chat);

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const family = familyOf(req.url);
    if (family.key(req) !== KEY) {
      res.writeHead(401, { "content-type": "application/json" });
      return res.end('{"error":{"message":"bad key"}}');
    }
    const stream = req.url.includes(":streamGenerateContent") || Buffer.concat(chunks).toString().includes('"stream":true');
    if (!stream) {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(family.json) });
      return res.end(family.json);
    }
    const query = new URL(req.url, "http://x").searchParams;
    const delay = Number(query.get("delay") ?? 0);
    const count = Number(query.get("chunks") ?? 20);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    let i = 0;
    // Chunk i leaves at start + i * delay, not delay after the one before: timer drift must not add up, or it
    // would show as lateness of every target alike.
    const start = performance.now();
    const next = () => {
      if (res.destroyed) return;
      if (i === count) return res.end(family.end);
      res.write(family.chunk(i++));
      if (delay) setTimeout(next, Math.max(0, start + i * delay - performance.now()));
      else next();
    };
    next();
  });
});
server.keepAliveTimeout = 60_000;
// A queue as long as the gateway's, so no proxy's burst of upstream connections waits for a SYN retry here.
server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => console.log(`port ${server.address().port}`));
