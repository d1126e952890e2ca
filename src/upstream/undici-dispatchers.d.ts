// The dispatcher modules of undici the gateway builds its pools from (`create-dispatcher.ts`), typed as the package's
// index exports them: each module's `module.exports` is that class.
declare module "undici/lib/dispatcher/agent.js" {
  import type { Agent } from "undici";
  const agent: typeof Agent;
  export default agent;
}
declare module "undici/lib/dispatcher/client.js" {
  import type { Client } from "undici";
  const client: typeof Client;
  export default client;
}
declare module "undici/lib/dispatcher/env-http-proxy-agent.js" {
  import type { EnvHttpProxyAgent } from "undici";
  const envHttpProxyAgent: typeof EnvHttpProxyAgent;
  export default envHttpProxyAgent;
}
declare module "undici/lib/dispatcher/pool.js" {
  import type { Pool } from "undici";
  const pool: typeof Pool;
  export default pool;
}
declare module "undici/lib/dispatcher/dispatcher.js" {
  import type { Dispatcher } from "undici";
  const dispatcher: typeof Dispatcher;
  export default dispatcher;
}
// `request`, `stream`, `pipeline`, `connect` and `upgrade`: what undici's index adds to every dispatcher.
declare module "undici/lib/api/index.js" {
  const api: Record<string, unknown>;
  export default api;
}
