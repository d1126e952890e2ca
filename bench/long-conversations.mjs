// Long conversations (issue 43, goal 1): Claude-Code-shaped requests of 72 KB to 3 MB (`conversations.mjs`), one
// at a time and 8 at once, sent to every target in turn, against the fake upstream, which parses each body whole. A
// request's time is from its first byte sent to its reply's last byte (a stream of 20 events); what a target adds is
// its median less the fake alone's. The gateways' peak RSS while 8 requests of 3 MB are in flight is the kernel's
// own high-water mark (`VmHWM`), reset when that phase starts. Each size's decode-and-parse is measured alone too
// (issue 53, goal 1): the least a gateway that checks the body (SPEC 3.5) must spend on it.
import { Agent, request } from "node:http";
import { conversation } from "./conversations.mjs";
import { peakRssMb, resetPeakRss } from "./processes.mjs";
import { auth, pathOf } from "./requests.mjs";
import { percentile } from "./streams.mjs";

/** The sizes issue 43 names: a first request, a session, a long session, a 1M-token context. */
export const SIZES = [72 * 1024, 250 * 1024, 1024 * 1024, 3 * 1024 * 1024];
export const AT_ONCE = 8;

/** Sends one request on `agent`; resolves with the ms from its start to the reply's last byte. */
function send(agent, url, { path, headers, body }) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(`${url}${path}`, { method: "POST", headers: { ...headers, "content-length": body.length }, agent }, (res) => {
      const head = [];
      res.on("data", (chunk) => res.statusCode !== 200 && head.push(chunk));
      res.on("end", () => {
        if (res.statusCode === 200) resolve(performance.now() - started);
        else reject(new Error(`${url}${path}: ${res.statusCode} ${Buffer.concat(head).toString().slice(0, 300)}`));
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** `count` requests at once; resolves with the ms until the last reply's last byte. */
async function sendAtOnce(agent, url, made, count) {
  const started = performance.now();
  await Promise.all(Array.from({ length: count }, () => send(agent, url, made)));
  return performance.now() - started;
}

/**
 * The p50 ms of decoding `body` and `JSON.parse` of its text, alone in this process: the cheapest decode that checks
 * as much (latin1: one character a byte, as `server/stages/check-body.ts` explains), so the goal it sets is no looser.
 */
export function decodeAndParseMs(body, runs) {
  const times = [];
  for (let i = 0; i < runs + 3; i++) {
    const started = performance.now();
    JSON.parse(body.toString("latin1"));
    if (i >= 3) times.push(performance.now() - started);
  }
  return percentile(times, 50);
}

const summary = (times) => ({ p25: percentile(times, 25), p50: percentile(times, 50), p75: percentile(times, 75) });

/**
 * `targets`: `{ name, url, pid?, request(conversation) }` in the order they take turns; the first is the fake
 * alone. Each size: `warmups` unmeasured requests per target, then `runs` rounds of one request per target in turn,
 * then `runs` rounds of `AT_ONCE` at once per target in turn. `memory` names the targets whose peak RSS is read.
 */
export async function longConversations(targets, { runs, warmups, memory, say }) {
  const agents = new Map(targets.map((t) => [t, new Agent({ keepAlive: true, maxSockets: AT_ONCE })]));
  const results = [];
  try {
    for (const bytes of SIZES) {
      const conv = conversation(bytes);
      const made = new Map(targets.map((t) => [t, t.request(conv)]));
      const one = new Map(targets.map((t) => [t, []]));
      const many = new Map(targets.map((t) => [t, []]));
      for (const t of targets) for (let i = 0; i < warmups; i++) await send(agents.get(t), t.url, made.get(t));
      say(`long conversation of ${Math.round(bytes / 1024)} KB: one at a time ...`);
      for (let run = 0; run < runs; run++) for (const t of targets) one.get(t).push(await send(agents.get(t), t.url, made.get(t)));
      say(`long conversation of ${Math.round(bytes / 1024)} KB: ${AT_ONCE} at once ...`);
      const watched = bytes === SIZES.at(-1) ? targets.filter((t) => memory.includes(t.name)) : [];
      for (const t of watched) resetPeakRss(t.pid);
      for (let run = 0; run < runs; run++) for (const t of targets) many.get(t).push(await sendAtOnce(agents.get(t), t.url, made.get(t), AT_ONCE));
      results.push({
        bytes,
        decodeAndParseMs: decodeAndParseMs(made.get(targets[0]).body, runs),
        sizes: Object.fromEntries(targets.map((t) => [t.name, made.get(t).body.length])),
        one: Object.fromEntries(targets.map((t) => [t.name, summary(one.get(t))])),
        many: Object.fromEntries(targets.map((t) => [t.name, summary(many.get(t))])),
        peakRssMb: Object.fromEntries(watched.map((t) => [t.name, peakRssMb(t.pid)])),
        inFlightMb: (AT_ONCE * bytes) / 1024 / 1024,
      });
    }
  } finally {
    for (const agent of agents.values()) agent.destroy();
  }
  return results;
}

/**
 * The long-conversation targets, in the order they take turns: the fake alone (with each body the others get), the
 * floor and the gateway passing a messages request through, the several-upstreams gateway translating messages and
 * Responses to its chat-only upstream, the bare translator (`translating-floor.mjs`) and claude-code-router
 * translating messages. `first(name)` is a bench
 * process; `keys` the upstream's and the local key.
 */
export function conversationTargets(first, { upstreamKey, localKey, translatedModel }) {
  const headers = (family, key) => ({ ...auth[family](key), "content-type": "application/json" });
  const messages = (key, model, path = pathOf("messages")) => (conv) => ({ path, headers: headers("messages", key), body: conv.messages(model) });
  const responses = (key, model) => (conv) => ({ path: pathOf("responses"), headers: headers("responses", key), body: conv.responses(model) });
  const targets = [
    { ...first("direct"), name: "fake", request: messages(upstreamKey, "m") },
    { ...first("direct"), name: "fake, Responses body", request: responses(upstreamKey, "m") },
    { ...first("floor"), name: "floor", request: messages(localKey, "m") },
    { ...first("gateway"), name: "passthrough", request: messages(localKey, "m") },
    { ...first("several"), name: "messages -> chat", request: messages(localKey, translatedModel) },
    { ...first("several"), name: "responses -> chat", request: responses(localKey, translatedModel) },
  ];
  const least = first("floor-translate");
  if (least) targets.push({ ...least, name: "bare translator", request: messages(localKey, translatedModel) });
  const ccr = first("ccr");
  if (ccr) targets.push({ ...ccr, name: "claude-code-router", request: messages(localKey, `bench,${translatedModel}`, "/v1/messages") });
  return targets;
}

/** What `name` adds over the fake alone with the same body, at `field` of `phase` (`one` or `many`). */
export function addedMs(result, name, phase = "one", field = "p50") {
  const baseline = name === "responses -> chat" ? "fake, Responses body" : "fake";
  return result[phase][name][field] - result[phase][baseline][field];
}
