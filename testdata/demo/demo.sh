#!/usr/bin/env bash
# Offline demo: runs rubichan against a scripted model server (no API key,
# no network) on a copy of testdata/demo/ws and shows what changed.
# Usage: testdata/demo/demo.sh BIN/rubichan BIN/llmserve
set -euo pipefail
rubichan=$(realpath "$1")
llmserve=$(realpath "$2")
demo=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
cp -r "$demo/ws" "$work/ws"
"$llmserve" -url-file "$work/url" "$demo/script.json" >/dev/null &
server=$!
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.05; done

echo "\$ rubichan exec --policy policy.toml \"fix the typo\" < greet.go"
echo
cd "$work/ws"
set +e
# The session log goes to the demo's temporary directory, not ~/.local/state.
ANTHROPIC_API_KEY=demo-key ANTHROPIC_BASE_URL=$(cat "$work/url") RUBICHAN_SESSION_DIR="$work/sessions" \
  "$rubichan" exec --policy "$demo/policy.toml" "fix the typo" < greet.go
code=$?
set -e
echo
echo "exit code: $code"
echo
echo "changes:"
diff -u "$demo/ws/greet.go" greet.go | sed '1,2d' || true
echo
echo "session log (first lines; a run's log lives in ~/.local/state/rubichan/sessions):"
head -n 4 "$work"/sessions/*.jsonl | cut -c1-150
