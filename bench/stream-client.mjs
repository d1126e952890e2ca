// One process of the open-streams load client (one Node process reads about 8,000 chunks a second, so the bench
// splits the streams over several). Reads a job as JSON from argv: `requests` (taken in turn), `url`, the global
// indices of its streams and when each starts (epoch ms). Each stream is a new connection. Prints, as one JSON
// line, per stream: when it was sent and when each `tok<i>` of the fake upstream arrived (epoch ms), or its error.
import { Agent, request as httpRequest } from "node:http";

const job = JSON.parse(process.argv[2]);
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
const now = () => performance.timeOrigin + performance.now();
const TOKEN = /tok(\d+) /g;

function openStream({ path, headers, body }) {
  return new Promise((resolve) => {
    const sent = now();
    const arrivals = [];
    const req = httpRequest(`${job.url}${path}`, { method: "POST", headers, agent }, (res) => {
      if (res.statusCode !== 200) return resolve({ sent, error: `status ${res.statusCode}` });
      res.setEncoding("utf8");
      res.on("data", (text) => {
        const at = now();
        for (const match of text.matchAll(TOKEN)) arrivals[Number(match[1])] = at;
      });
      res.on("end", () => resolve({ sent, arrivals }));
      res.on("error", (error) => resolve({ sent, error: error.message }));
    });
    req.on("error", (error) => resolve({ sent, error: error.message }));
    req.end(body);
  });
}

const results = await Promise.all(
  job.streams.map(({ index, at }) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - now()))).then(() => openStream(job.requests[index % job.requests.length]))),
);
process.stdout.write(`${JSON.stringify(results)}\n`);
