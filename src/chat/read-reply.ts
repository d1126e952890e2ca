import { createParser } from "eventsource-parser";
import { CliError } from "../errors.js";
import type { FamilyName } from "../families/index.js";
import type { UpstreamReply } from "../upstream/upstream-client.js";
import { replyText, streamPiece } from "./conversation.js";

/** Streams the reply's text to `write` as events arrive and returns the whole text. */
export async function streamReply(reply: UpstreamReply, family: FamilyName, write: (text: string) => void): Promise<string> {
  let text = "";
  let failure: string | undefined;
  const parser = createParser({
    onEvent(event) {
      const piece = streamPiece(family, event.event, event.data);
      if (!piece) return;
      if ("error" in piece) failure ??= piece.error;
      else {
        text += piece.text;
        write(piece.text);
      }
    },
  });
  for await (const chunk of reply.body) parser.feed((chunk as Buffer).toString("utf8"));
  if (failure) throw new CliError(`The reply broke off: ${failure}`, { hint: "Try again; run `gateway doctor` if it keeps happening." });
  return text;
}

/** Reads a whole non-stream reply: the parsed JSON and its text. */
export async function readReply(reply: UpstreamReply, family: FamilyName): Promise<{ json: Record<string, unknown>; text: string }> {
  const json = (await reply.body.json()) as Record<string, unknown>;
  return { json, text: replyText(family, json) };
}
