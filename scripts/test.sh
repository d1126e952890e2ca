#!/bin/sh
# The test command: builds, then runs vitest, inside a private Secret Service when one can be started (CI always
# can: .ci/run installs it), so the keychain tests run against a real keyring. Elsewhere they are skipped, saying why.
# The tests, the bench and the page are type-checked first: the build checks only what it ships.
set -eu
cd "$(dirname "$0")/.."
npm run build --silent
npm run typecheck --silent
if command -v dbus-run-session >/dev/null 2>&1 && command -v gnome-keyring-daemon >/dev/null 2>&1; then
  exec sh scripts/with-keyring.sh npx vitest run "$@"
fi
exec npx vitest run "$@"
