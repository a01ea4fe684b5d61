#!/usr/bin/env bash
# car on a real example: a throwaway git project with car installed, and the payloads Claude Code
# sends after an edit and at a stop piped into `car hook`. Each answer is shown as a short
# human rendering; --json shows the raw JSON the agent reads instead. It ends by writing the
# project's report page (`car report`) and printing its path.
#
# Usage: examples/demo.sh [--json] [--keep]
#   --json   print car's raw JSON answers
#   --keep   keep the demo project (its path is printed) for a look around
# Needs `car` on PATH (cargo install --locked --path .); python3 for the learning part.
set -euo pipefail
raw=0 keep=0
for arg in "$@"; do
  case "$arg" in
    --json) raw=1 ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "demo.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done
command -v car >/dev/null || { echo "car is not on PATH; run: cargo install --locked --path ." >&2; exit 2; }
fixtures="$(cd "$(dirname "$0")/../tests/fixtures/hook-payloads" && pwd)"
project="$(mktemp -d)"
if [ "$keep" = 1 ]; then
  trap 'echo; echo "The demo project is kept in $project"' EXIT
else
  trap 'rm -rf "$project"' EXIT
fi
cd "$project"
git init -q
session=3f1c2a9e-8d7b-4c1e-9a55-1b2c3d4e5f60

# The agent's answer as people read it (or the raw JSON with --json, or without python3).
show() {
  if [ "$raw" = 1 ] || ! command -v python3 >/dev/null; then printf '%s\n' "$1"; return; fi
  python3 - "$1" <<'PY'
import json, sys
answer = json.loads(sys.argv[1])
def lines(label, text, limit=8):
    rows = text.splitlines()
    print(f"  {label}")
    for row in rows[:limit]:
        print("    " + (row if len(row) <= 110 else row[:109] + "…"))
    if len(rows) > limit:
        print(f"    … ({len(rows) - limit} more lines; --json shows everything)")
if answer.get("decision") == "block":
    lines("BLOCKED: car tells the agent", answer["reason"])
context = answer.get("hookSpecificOutput", {}).get("additionalContext")
if context:
    lines("WARNING for the agent (it goes on)", context)
if answer.get("systemMessage"):
    lines("NOTE for you", answer["systemMessage"])
if not answer:
    print("  OK: {} (nothing to say; the agent goes on)")
PY
}

# A payload fixture pointed at this project; `edit FILE CONTENT` writes a file the way the
# agent's Write tool does and returns its payload.
payload() { sed "s#/home/user/proj#$project#g" "$fixtures/$1"; }
write_payload() {
  mkdir -p "$(dirname "$1")"
  printf '%s' "$2" > "$1"
  python3 -c 'import json, sys; print(json.dumps({"session_id": sys.argv[1], "cwd": sys.argv[2],
    "hook_event_name": "PostToolUse", "tool_name": "Write",
    "tool_input": {"file_path": sys.argv[2] + "/" + sys.argv[3], "content": sys.argv[4]},
    "tool_response": {"type": "create", "filePath": sys.argv[2] + "/" + sys.argv[3], "content": sys.argv[4], "originalFile": None}}))' \
    "$session" "$project" "$1" "$2"
}
step() { echo; echo "## $*"; }

step "car install (wires the hooks into .claude/settings.json, adds the starter lessons)"
car install --non-interactive --starter-lessons 2>&1 | sed 's/^/  /'

step "1. The agent writes config/settings.json with a trailing comma"
mkdir -p config
printf '{\n  "name": "demo",\n  "retries": 3,\n}\n' > config/settings.json
show "$(payload claude-post-write-create.json | car hook post-tool-use)"

step "2. The agent fixes it"
printf '{\n  "name": "demo",\n  "retries": 3\n}\n' > config/settings.json
show "$(payload claude-post-write-create.json | sed 's/3,\\n}/3\\n}/g' | car hook post-tool-use)"

if command -v python3 >/dev/null; then
  step "3. A starter lesson fires: the agent writes a bare except:"
  show "$(write_payload src/jobs.py $'def run(job):\n    try:\n        job()\n    except:\n        pass\n' | car hook post-tool-use)"

  step "4. The agent imports a module that does not exist (a hallucinated name): car blocks, and notes it"
  show "$(write_payload src/fetch.py $'import fastjsonx\n\nprint(fastjsonx.loads("{}"))\n' | car hook post-tool-use)"
  car lessons candidates | sed 's/^/  /'

  step "5. The agent fixes it (json is the real module): the fix is kept with the candidate"
  show "$(write_payload src/fetch.py $'import json\n\nprint(json.loads("{}"))\n' | car hook post-tool-use)"

  step "6. The same mistake again, in another file: car learns a lesson that says what to write"
  show "$(write_payload src/report.py $'import fastjsonx\n' | car hook post-tool-use)"
  car lessons list | grep -A1 fastjsonx | sed 's/^/  /'
  show "$(write_payload src/report.py $'import json\n' | car hook post-tool-use)"
else
  step "3–6. (skipped: python3 is needed for the lesson and learning steps)"
fi

step "7. The agent tries to stop: the review gate asks for a review first"
show "$(payload claude-stop.json | car hook stop)"

step "8. The agent reviews in-session and records its findings (one P3: offered, never blocking)"
car review submit --session "$session" - 2>&1 <<'JSON' | sed 's/^/  /'
{"findings": [{"id": "F1", "severity": "P3", "file": "config/settings.json", "line": 3,
  "title": "retries could be documented", "suggestion": "add a comment in the README"}],
 "known_limits": []}
JSON

step "9. The agent stops again: allowed, with the P3 offer list for you"
show "$(payload claude-stop-active.json | car hook stop)"

step "10. car status"
car status | sed 's/^/  /' || true

step "11. car report: one page of what car learned and why each stop was blocked or allowed"
page="$(car report)"
echo "  the report: $page"
if [ "$keep" = 1 ]; then
  echo "  open it in a browser (or: car report --open)"
else
  echo "  (the demo project is removed on exit; run with --keep to open the page)"
fi
