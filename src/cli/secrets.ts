import { Secrets } from "../secrets.js";

/** The keys this CLI process knows: one CLI run is one process, so one set serves the whole run. */
export const secrets = new Secrets();

/** Remembers a key so that `redact` hides it (`Secrets.remember`). */
export const rememberSecret = (value: string | undefined): void => secrets.remember(value);

/** `text` with every known key replaced by `***`. */
export const redact = (text: string): string => secrets.redact(text);
