export type * from "./types.js";
export { translateRequest, type TranslatedRequest } from "./translate-request.js";
export { upstreamEventOf } from "./upstream-event.js";
