#!/bin/sh
# The bench's set-up: wrk from Debian when it is missing (the load generator the figures are measured with), and
# claude-code-router, the peer row, from npm into a cache directory outside the repository (never a dependency).
# Without root or apt, the bench still runs, with autocannon, and its report says so; without the peer, its rows
# are left out.
if ! command -v wrk >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >/dev/null 2>&1; }
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >/dev/null 2>&1
  fi
fi
command -v wrk >/dev/null 2>&1 || echo "bench: wrk is not installed (apt-get install wrk); measuring with autocannon instead" >&2
# 2.0.0: 3.x depends on a package the npm registry does not have (@the-next-ai/ai-gateway), so it does not install.
PEERS="${XDG_CACHE_HOME:-$HOME/.cache}/gateway-bench/peers"
CCR_VERSION=2.0.0
if ! grep -qs "\"version\": \"$CCR_VERSION\"" "$PEERS/node_modules/@musistudio/claude-code-router/package.json"; then
  mkdir -p "$PEERS" &&
    npm install --prefix "$PEERS" --no-save --no-audit --no-fund --loglevel=error "@musistudio/claude-code-router@$CCR_VERSION" >/dev/null 2>&1 ||
    echo "bench: claude-code-router could not be installed; its rows are left out" >&2
fi
exit 0
