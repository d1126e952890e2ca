// The baseline of `gateway start` to its first /health: a bare node:http server started the same way (a Node
// process given `--port <n>`), answering /health with a small JSON object.
import { createServer } from "node:http";

const port = Number(process.argv[process.argv.indexOf("--port") + 1]);
createServer((req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end('{"status":"ok"}');
}).listen(port, "127.0.0.1");
