import type { IncomingHttpHeaders } from "node:http";
import type { GatewayErrorType } from "../errors.js";

/** The two wire styles the gateway serves. */
export type FamilyName = "chat" | "messages";

/** What an error looks like before it is put in a family's envelope. */
export interface ErrorFields {
  type: GatewayErrorType;
  message: string;
  param: string | null;
  code: string | null;
}

/**
 * Everything that differs between the chat-completions and messages styles. The server and the upstream
 * client are written once against this table.
 */
export interface Family {
  readonly name: FamilyName;
  /** Path prefix under the upstream base, e.g. `""` or `"/anthropic"`. */
  upstreamPrefix(segment: string): string;
  /** The local key the client presented, if any. */
  presentedKey(headers: IncomingHttpHeaders): string | undefined;
  /** Headers that carry the upstream key. */
  upstreamAuth(key: string): Record<string, string>;
  /** The JSON error body of this family. */
  errorBody(error: ErrorFields): unknown;
  /** One server-sent event that ends a broken stream in this family's format. */
  streamErrorEvent(error: ErrorFields): string;
}
