export * from "./gateway-error.js";
export * from "./http-error.js";
export * from "./upstream-error.js";
