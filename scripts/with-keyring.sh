#!/bin/sh
# Runs a command inside a private D-Bus session with an unlocked gnome-keyring Secret Service, so keychain code
# is tested against the real thing without touching the user's own keyring (its data lives in a temp dir).
# Usage: scripts/with-keyring.sh <command> [args...]
set -eu
if ! command -v dbus-run-session >/dev/null 2>&1 || ! command -v gnome-keyring-daemon >/dev/null 2>&1; then
  echo "with-keyring: dbus-run-session and gnome-keyring-daemon are needed (apt-get install dbus gnome-keyring)" >&2
  exit 127
fi
KEYRING_DATA=$(mktemp -d)
export KEYRING_DATA
trap 'rm -rf "$KEYRING_DATA"' EXIT
# The session bus logs to syslog only: in a container its notices ("Failed to set fd limit", "Activating service")
# would land among the test output, and there is nothing to do about them.
printf '#!/bin/sh\nexec dbus-daemon --syslog-only "$@"\n' > "$KEYRING_DATA/dbus-daemon"
chmod +x "$KEYRING_DATA/dbus-daemon"
dbus-run-session --dbus-daemon="$KEYRING_DATA/dbus-daemon" -- sh -c '
  export XDG_DATA_HOME="$KEYRING_DATA"
  printf %s "gateway-test" | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
  kr=$!
  tries=0
  until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true"; do
    tries=$((tries + 1))
    if [ "$tries" -gt 100 ]; then echo "with-keyring: the Secret Service did not start" >&2; kill $kr; exit 1; fi
    sleep 0.1
  done
  export GATEWAY_TEST_KEYRING=1
  "$@"
  rc=$?
  kill $kr 2>/dev/null || true
  exit $rc
' sh "$@"
