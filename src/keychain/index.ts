export { createOsKeyStore, KEYCHAIN_SERVICE, type KeyStore, type OsKeyStoreOptions } from "./key-store.js";
export { keychainKeySource, KEY_TTL_MS } from "./keychain-key-source.js";
export { keychainUnavailable } from "./keychain-error.js";
