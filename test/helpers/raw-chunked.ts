import { connect, createServer, type AddressInfo, type Socket } from "node:net";

const frame = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

/**
 * An upstream on a bare socket, so that what it sends in one write is exactly what the gateway reads at once: once a
 * request is whole, it answers with a chunked `text/event-stream` whose chunks come in `writes`, one socket write
 * each: the first at once, each next one when the test calls `next()`; the last write also ends the body.
 */
export async function startChunkedUpstream(writes: string[][]): Promise<{ url: string; next(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let sent = 0;
  let answering: Socket | undefined;
  const send = () => {
    const chunks = writes[sent++];
    if (!answering || !chunks) return;
    const last = sent === writes.length;
    answering.write(`${sent === 1 ? "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n" : ""}${chunks.map(frame).join("")}${last ? "0\r\n\r\n" : ""}`);
    if (last) answering.end();
  };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let request = "";
    socket.on("data", (data) => {
      request += data.toString("latin1");
      const head = request.indexOf("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(request)?.[1] ?? 0);
      if (head === -1 || request.length < head + 4 + length) return;
      answering = socket;
      send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    next: send,
    // A test that failed half-way leaves its connection open: it is cut, not waited for.
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

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
