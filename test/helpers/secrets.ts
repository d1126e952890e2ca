import { FAKE_UPSTREAM_KEY } from "./fake-upstream.js";

/** Upstream keys the tests use; none of them may ever appear in anything the CLI prints. */
export const TEST_SECRETS = [FAKE_UPSTREAM_KEY, "sk-login-good-key-9f8e7d6c5b4a", "sk-login-bad-key-1a2b3c4d5e6f"] as const;
export const [, GOOD_LOGIN_KEY, BAD_LOGIN_KEY] = TEST_SECRETS;
