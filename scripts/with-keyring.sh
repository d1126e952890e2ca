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

# The bus starts the Secret Service on demand, as a desktop session does, and only this way: always unlocked with
# the same password and data, so the keys stored survive the daemon going away and coming back. The system's own
# service files are left out on purpose: they start gnome-keyring without a password, which has no collection to
# store keys in (a long suite once met one mid-run and failed every keychain test after it).
mkdir "$KEYRING_DATA/services"
cat > "$KEYRING_DATA/secret-service" <<EOF
#!/bin/sh
echo started >> "$KEYRING_DATA/starts"
printf %s gateway-test | XDG_DATA_HOME="$KEYRING_DATA" exec gnome-keyring-daemon --foreground --unlock --components=secrets >> "$KEYRING_DATA/secret-service.log" 2>&1
EOF
chmod +x "$KEYRING_DATA/secret-service"
for name in org.freedesktop.secrets org.gnome.keyring; do
  printf '[D-BUS Service]\nName=%s\nExec=%s\n' "$name" "$KEYRING_DATA/secret-service" > "$KEYRING_DATA/services/$name.service"
done
cat > "$KEYRING_DATA/session.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$KEYRING_DATA/services</servicedir>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
EOF
# The session bus logs to syslog only: in a container its notices ("Failed to set fd limit", "Activating service")
# would land among the test output, and there is nothing to do about them.
printf '#!/bin/sh\nexec dbus-daemon --syslog-only "$@"\n' > "$KEYRING_DATA/dbus-daemon"
chmod +x "$KEYRING_DATA/dbus-daemon"
dbus-run-session --dbus-daemon="$KEYRING_DATA/dbus-daemon" --config-file="$KEYRING_DATA/session.conf" -- sh -c '
  if ! dbus-send --session --print-reply --reply-timeout=20000 --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.StartServiceByName string:org.freedesktop.secrets uint32:0 >/dev/null; then
    echo "with-keyring: the Secret Service did not start" >&2
    cat "$KEYRING_DATA/secret-service.log" >&2 2>/dev/null || true
    exit 1
  fi
  export GATEWAY_TEST_KEYRING=1
  rc=0
  "$@" || rc=$?
  starts=$(wc -l < "$KEYRING_DATA/starts")
  if [ "$starts" -gt 1 ]; then
    echo "with-keyring: the Secret Service went away during the run and was started again ($starts starts); its log:" >&2
    cat "$KEYRING_DATA/secret-service.log" >&2
  fi
  exit $rc
' sh "$@"
