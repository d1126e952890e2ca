import * as v from "valibot";
import { upstreamChoice } from "./base-url.js";
import { budgets } from "./budgets.js";
import { modelAliases } from "./model-aliases.js";
import { modelPrices } from "./prices.js";
import { routes } from "./routes.js";
import { telemetry } from "./telemetry.js";
import { fields } from "./shapes.js";
import { upstreamEntries } from "./upstream-entry.js";
import { capture, maxBodyBytes, nonEmptyText, origin, port, retries, segment, shutdownGraceMs, timeouts } from "./values.js";

/** `config.json` (SPEC sections 7 and 10): every field optional, unknown fields refused. */
export const configFile = v.pipe(
  fields(
    {
      $schema: v.optional(v.unknown()),
      upstream: v.optional(upstreamChoice),
      messagesSegment: v.optional(segment),
      geminiSegment: v.optional(segment),
      port: v.optional(port),
      host: v.optional(nonEmptyText),
      cors: v.optional(v.array(origin, "an array of origins")),
      defaultModel: v.optional(nonEmptyText),
      anthropicVersion: v.optional(nonEmptyText),
      retries: v.optional(retries),
      timeouts: v.optional(timeouts),
      maxBodyBytes: v.optional(maxBodyBytes),
      shutdownGraceMs: v.optional(shutdownGraceMs),
      models: v.optional(modelAliases),
      capture: v.optional(capture),
      prices: v.optional(modelPrices),
      budgets: v.optional(budgets),
      upstreams: v.optional(upstreamEntries),
      routes: v.optional(routes),
      telemetry: v.optional(telemetry),
    },
    "a JSON object",
  ),
  v.transform(({ $schema: _, ...rest }) => rest),
);

/** What one source declares: the file all of it, the environment and the flags a few fields. */
export type FileFields = v.InferOutput<typeof configFile>;
