// The benchmark's upstream: as fast as node:http allows, fixed replies in both wire formats.
// POST bodies with "stream":true get 20 SSE chunks, CHUNK_DELAY_MS apart (query ?delay=<ms> overrides).
import { createServer } from "node:http";

const KEY = process.env.BENCH_UPSTREAM_KEY;
const chatJson = JSON.stringify({ id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "hello from the bench" }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
const messageJson = JSON.stringify({ id: "m", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: "hello from the bench" }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } });
const chatChunk = (i) => `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"tok${i} "},"finish_reason":null}]}\n\n`;
const messageChunk = (i) => `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tok${i} "}}\n\n`;

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const messages = req.url.includes("/anthropic/");
    const presented = messages ? req.headers["x-api-key"] : req.headers.authorization?.slice(7);
    if (presented !== KEY) {
      res.writeHead(401, { "content-type": "application/json" });
      return res.end('{"error":{"message":"bad key"}}');
    }
    const body = Buffer.concat(chunks).toString();
    if (!body.includes('"stream":true')) {
      const json = messages ? messageJson : chatJson;
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
      return res.end(json);
    }
    const delay = Number(new URL(req.url, "http://x").searchParams.get("delay") ?? 0);
    const chunk = messages ? messageChunk : chatChunk;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    let i = 0;
    const next = () => {
      if (res.destroyed) return;
      if (i === 20) return res.end(messages ? "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n" : "data: [DONE]\n\n");
      res.write(chunk(i++));
      if (delay) setTimeout(next, delay);
      else next();
    };
    next();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => console.log(`port ${server.address().port}`));
