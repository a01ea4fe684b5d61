#!/usr/bin/env bash
# The README's picture of `car report`: runs examples/demo.sh --keep, renders the demo project's
# report page in headless Chromium, and writes the screenshot (default docs/report.png).
#
# Usage: examples/report-screenshot.sh [OUT.png]
# Needs `car` on PATH (cargo install --locked --path .), python3 (the demo), and chromium.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../docs/report.png}"
browser="$(command -v chromium || command -v chromium-browser || true)"
[ -n "$browser" ] || { echo "report-screenshot.sh: chromium is not installed (apt-get install chromium)" >&2; exit 2; }
log="$(mktemp)"
"$here/demo.sh" --keep > "$log"
project="$(sed -n 's/^The demo project is kept in //p' "$log")"
rm -f "$log"
[ -d "$project" ] || { echo "report-screenshot.sh: the demo kept no project" >&2; exit 1; }
trap 'rm -rf "$project"' EXIT
page="$(cd "$project" && car report)"
profile="$(mktemp -d)"
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
  --window-size=1280,3000 --screenshot="$out" "file://$page" 2>/dev/null
rm -rf "$profile"
echo "$out"
