#!/bin/sh
# The bench's set-up: wrk from Debian when it is missing (the load generator the figures are measured with).
# Without root or apt, the bench still runs, with autocannon, and its report says so.
command -v wrk >/dev/null 2>&1 && exit 0
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >/dev/null 2>&1; }
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >/dev/null 2>&1
  fi
fi
command -v wrk >/dev/null 2>&1 || echo "bench: wrk is not installed (apt-get install wrk); measuring with autocannon instead" >&2
exit 0
