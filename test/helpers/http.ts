import { request } from "node:http";
import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A plain node:http request, for headers that fetch forbids (Host, Origin, Connection) and exact bytes. */
export function rawRequest(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string> | string[]; body?: string | Buffer },
): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  // Raw header arrays (repeated headers) get no automatic Host or content-length from node:http.
  const headers = Array.isArray(options.headers)
    ? [
        ...(options.headers.some((h, i) => i % 2 === 0 && h.toLowerCase() === "host") ? [] : ["host", `${hostname}:${port}`]),
        ...options.headers,
        ...(options.body === undefined ? [] : ["content-length", String(Buffer.byteLength(options.body))]),
      ]
    : options.headers;
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method: options.method ?? "GET", path: options.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/** JSON headers with the local key, chat family. */
export const chatHeaders = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });

/** JSON headers with the local key, messages family. */
export const messagesHeaders = (key: string) => ({ "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" });

/**
 * A POST on a bare socket (`connection: close`), read to its end: the response as received, its chunked framing
 * included, one character a byte (latin1, so chunk sizes count characters). `onData` sees it so far after each read.
 */
export function rawPost(url: string, path: string, headers: Record<string, string>, body: string, onData: (received: string) => void): Promise<string> {
  const { hostname, port } = new URL(url);
  const lines = Object.entries({ host: `${hostname}:${port}`, ...headers, connection: "close", "content-length": String(Buffer.byteLength(body)) }).map(([name, value]) => `${name}: ${value}\r\n`);
  const socket = connect(Number(port), hostname);
  socket.write(`POST ${path} HTTP/1.1\r\n${lines.join("")}\r\n${body}`);
  let received = "";
  return new Promise((resolve, reject) => {
    socket.on("data", (data) => {
      received += data.toString("latin1");
      onData(received);
    });
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
  });
}

/** An `onData` for `rawPost` that calls `next` once for each marker, in order, the first time the response holds it. */
export function nextOnEach(markers: string[], next: () => void): (received: string) => void {
  let at = 0;
  return (received) => {
    while (at < markers.length && received.includes(markers[at]!)) {
      at++;
      next();
    }
  };
}

/** The chunks of a chunked HTTP response, as the frames it was sent in. */
export function chunkFrames(response: string): string[] {
  const frames: string[] = [];
  for (let at = response.indexOf("\r\n\r\n") + 4; ; ) {
    const line = response.indexOf("\r\n", at);
    const size = parseInt(response.slice(at, line), 16);
    if (!(size > 0)) return frames;
    frames.push(response.slice(line + 2, line + 2 + size));
    at = line + 2 + size + 2;
  }
}
