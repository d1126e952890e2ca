export type { Family, FamilyName, ErrorFields } from "./types.js";
export { chatFamily } from "./chat.js";
export { messagesFamily, DEFAULT_ANTHROPIC_VERSION } from "./messages.js";
