// One connection, the way a coding tool uses the gateway (issue 43, goal 3): one keep-alive connection per target,
// one request at a time, targets taking turns request by request. For a JSON reply the time is to its last byte;
// for a stream, to the first byte of its body (what a user waits for before text appears). What a target adds is its
// percentile less the floor's on the same upstream reply: the floor passes a chat request through, the gateway passes
// it through too, and translates a messages request to the chat-only upstream, whose reply is the same chat one.
import { Agent, request } from "node:http";
import { percentile } from "./streams.mjs";

/** Resolves with the ms from the request's start to the reply's first body byte (`firstByte`) or its end. */
function time(agent, url, { path, headers, body }, firstByte) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(`${url}${path}`, { method: "POST", headers: { ...headers, "content-length": Buffer.byteLength(body) }, agent }, (res) => {
      let at;
      res.on("data", () => (at ??= performance.now()));
      res.on("end", () => {
        if (res.statusCode !== 200) return reject(new Error(`${url}${path}: ${res.statusCode}`));
        resolve((firstByte ? at : performance.now()) - started);
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * `cases`: `{ label, firstByte, floor, gateway }`, where `floor` and `gateway` are `{ target, request }`. Each case:
 * `warmups` requests per side unmeasured, then `runs` pairs, the floor and the gateway in turn. Resolves with p50
 * and p99 of each side and what the gateway adds at each.
 */
export async function oneConnection(cases, { runs, warmups, say }) {
  const results = [];
  for (const c of cases) {
    say(`one connection: ${c.label} ...`);
    const sides = [c.floor, c.gateway].map((side) => ({ ...side, agent: new Agent({ keepAlive: true, maxSockets: 1 }), times: [] }));
    try {
      for (const side of sides) for (let i = 0; i < warmups; i++) await time(side.agent, side.target.url, side.request, c.firstByte);
      for (let run = 0; run < runs; run++) for (const side of sides) side.times.push(await time(side.agent, side.target.url, side.request, c.firstByte));
    } finally {
      for (const side of sides) side.agent.destroy();
    }
    const [floor, gateway] = sides.map((side) => ({ p50: percentile(side.times, 50), p99: percentile(side.times, 99) }));
    results.push({ label: c.label, floor, gateway, addedP50: gateway.p50 - floor.p50, addedP99: gateway.p99 - floor.p99 });
  }
  return results;
}
