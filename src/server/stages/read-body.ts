import type { IncomingMessage } from "node:http";
import { badRequest, requestTimeout, tooLarge } from "../../errors/index.js";

/** How long a request body may take to arrive (slow-loris bound). */
export const BODY_DEADLINE_MS = 60_000;

/**
 * Reads the whole request body into memory, refusing more than `limit` bytes and giving up with 408 after
 * `deadlineMs`. The body is kept so a retry can replay it without touching the client again. On 413 the rest of
 * the body is left for Node to drain after the response, so the client reads the 413 instead of a reset connection.
 */
export function readBody(req: IncomingMessage, limit: number, deadlineMs: number): Promise<Buffer> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      cleanup();
      reject(requestTimeout(Math.round(deadlineMs / 1000)));
    }, deadlineMs);
    const cleanup = () => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onAborted);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(badRequest(`The request body could not be read: ${error.message}`, { code: "body_read_failed" }));
    };
    const onAborted = () => onError(new Error("the client closed the connection"));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("aborted", onAborted);
  });
}
