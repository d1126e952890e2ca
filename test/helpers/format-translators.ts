import { FORMATS, formatNamed, type Format } from "../../src/formats/index.js";
import type { ClientSide, UpstreamSide } from "../../src/translate/types.js";

// Each format's translators load on a gateway's first request that needs them (issue 52); the tests that drive them
// without a gateway load every format's once, here, and read them as a request past that point does.
await Promise.all(FORMATS.map((format) => format.translators.load()));

/** A format's client side, loaded. */
export const clientOf = (format: Format): ClientSide => formatNamed(format).translators.loaded!.client;
/** The upstream side of a format a translated request can go out in, loaded. */
export const upstreamOf = (format: Format): UpstreamSide => formatNamed(format).translators.loaded!.upstream!;
