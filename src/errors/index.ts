export * from "./gateway-error.js";
export * from "./api-error.js";
export * from "./upstream-error.js";
export * from "./to-api-error.js";
