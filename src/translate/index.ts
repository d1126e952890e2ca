export type * from "./types.js";
export { translateRequest, type TranslatedRequest } from "./translate-request.js";
export { STREAM_END, upstreamEventOf } from "./upstream-event.js";
