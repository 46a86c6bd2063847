#!/usr/bin/env bash
# Offline demo: runs rubichan against a scripted model server (no API key,
# no network) on a copy of testdata/demo/ws, recording the model traffic to a
# cassette, and shows what changed; then replays the cassette on a fresh copy
# with the server stopped and no key, and shows that the run is the same.
# Usage: testdata/demo/demo.sh BIN/rubichan BIN/llmserve
# The demo's directory (the copies, the cassette, the session logs, the
# learned policy) is kept, so every path it prints can be looked at after:
# $DEMO_DIR, by default bin/demo beside the binary, emptied at the start.
set -euo pipefail
rubichan=$(realpath "$1")
llmserve=$(realpath "$2")
demo=$(cd "$(dirname "$0")" && pwd)
work=${DEMO_DIR:-$(dirname "$rubichan")/demo}
rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
trap 'kill "$server" 2>/dev/null || true' EXIT
cp -r "$demo/ws" "$work/ws"
"$llmserve" -url-file "$work/url" "$demo/script.json" >/dev/null &
server=$!
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.05; done

echo "\$ rubichan exec --record demo.cassette --policy policy.toml \"fix the typo\" < greet.go"
echo
cd "$work/ws"
set +e
# The session log goes to the demo's temporary directory, not ~/.local/state.
ANTHROPIC_API_KEY=demo-key ANTHROPIC_BASE_URL=$(cat "$work/url") RUBICHAN_SESSION_DIR="$work/sessions" \
  "$rubichan" exec --record "$work/demo.cassette" --policy "$demo/policy.toml" "fix the typo" < greet.go \
  | tee "$work/out1"
code=${PIPESTATUS[0]}
set -e
echo
echo "exit code: $code"
echo
echo "changes:"
diff -u --label a/greet.go --label b/greet.go "$demo/ws/greet.go" greet.go || true
echo
echo "session log (first lines; a run's log lives in ~/.local/state/rubichan/sessions):"
session=$(ls "$work"/sessions/*.jsonl)
head -n 4 "$session" | cut -c1-150

kill "$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true
echo
echo "\$ rubichan exec --replay demo.cassette --policy policy.toml \"fix the typo\" < greet.go"
echo "  (the model server stopped, no API key, a fresh copy in another directory)"
echo
cp -r "$demo/ws" "$work/replay"
cd "$work/replay"
set +e
env -u ANTHROPIC_API_KEY ANTHROPIC_BASE_URL=http://127.0.0.1:9 RUBICHAN_SESSION_DIR="$work/sessions" \
  "$rubichan" exec --replay "$work/demo.cassette" --policy "$demo/policy.toml" "fix the typo" < greet.go \
  | tee "$work/out2"
code2=${PIPESTATUS[0]}
set -e
echo
echo "exit code: $code2"
if cmp -s "$work/out1" "$work/out2" && cmp -s "$work/ws/greet.go" greet.go; then
  echo "same answer on stdout, same file changes"
else
  echo "the replay differs from the recorded run" >&2
  exit 1
fi

echo
echo "\$ rubichan policy learn SESSION -o learned.toml   (the smallest policy this run needed, to review)"
echo
"$rubichan" policy learn "$session" -o "$work/learned.toml"
cat "$work/learned.toml"
echo
echo "\$ rubichan policy check --policy learned.toml"
"$rubichan" policy check --policy "$work/learned.toml"
echo
echo "kept in $work: the workspaces, the cassette, the session logs and learned.toml"
