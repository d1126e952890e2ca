export * from "./app-error.js";
export * from "./http-error.js";
