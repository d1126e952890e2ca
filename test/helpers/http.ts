import { request } from "node:http";

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
