#!/usr/bin/env bash
# car's main job on a real example: a throwaway project, car installed into it, and the agent
# payloads Claude Code sends after an edit and at a stop, piped into `car hook`.
# Usage: examples/demo.sh   (needs `car` on PATH: cargo install --locked --path .)
set -euo pipefail
command -v car >/dev/null || { echo "car is not on PATH; run: cargo install --locked --path ." >&2; exit 2; }
fixtures="$(cd "$(dirname "$0")/../tests/fixtures/hook-payloads" && pwd)"
project="$(mktemp -d)"
trap 'rm -rf "$project"' EXIT
cd "$project"
git init -q
car install --non-interactive --starter-lessons

payload() { sed "s#/home/user/proj#$project#g" "$fixtures/$1"; }

echo
echo "## 1. The agent writes config/settings.json with a trailing comma (claude-post-write-create.json)"
mkdir -p config
printf '{\n  "name": "demo",\n  "retries": 3,\n}\n' > config/settings.json
payload claude-post-write-create.json | car hook post-tool-use
echo
echo "## 2. The agent fixes it"
printf '{\n  "name": "demo",\n  "retries": 3\n}\n' > config/settings.json
payload claude-post-write-create.json | sed 's/3,\\n}/3\\n}/g' | car hook post-tool-use
echo
echo "## 3. The agent tries to stop (claude-stop.json): the review gate answers"
payload claude-stop.json | car hook stop
echo
echo "## 4. The agent reviews in-session and records its findings (one P3: offered, never blocking)"
cat > findings.json <<'JSON'
{"findings": [{"id": "F1", "severity": "P3", "file": "config/settings.json", "line": 3,
  "title": "retries could be documented", "suggestion": "add a comment in the README"}],
 "known_limits": []}
JSON
car review submit --session 3f1c2a9e-8d7b-4c1e-9a55-1b2c3d4e5f60 findings.json
rm findings.json
echo
echo "## 5. The agent stops again (claude-stop-active.json): allowed, with the P3 offer list"
payload claude-stop-active.json | car hook stop
echo
echo "## 6. car status"
car status || true
