#!/usr/bin/env bash
# The image's checks (make image-check; .ci/run runs them after make test):
# size, user, labels; runs in the container against the scripted model
# server on the host network — a text answer, a tool call with a patch out,
# a denial — each compared with the same run of the binary on the host;
# the sandbox inside the container, under podman's seccomp profile and
# under one that blocks Landlock; a second build with the same digest.
#
# Usage: testdata/image/check.sh IMAGE BINARY VERSION REVISION EPOCH LLMSERVE
# Needs podman, buildah and runc; CONTAINERS_CONF as .ci/run writes it.
set -euo pipefail
image=$1 bin=$(realpath "$2") version=$3 revision=$4 epoch=$5 llmserve=$(realpath "$6")
here=$(cd "$(dirname "$0")" && pwd)
uid=10001
work=$(mktemp -d)
server=""
trap '[ -z "$server" ] || kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "image-check: FAIL: $*" >&2; exit 1; }

# Size: gzip of podman save, under 40 MB.
size=$(podman save "$image" 2>/dev/null | gzip -n | wc -c)
echo "image-check: size: $size bytes (gzip of podman save)"
[ "$size" -lt 40000000 ] || fail "the image is $size bytes compressed, over 40 MB"

# User, working directory, entrypoint, labels.
got=$(podman image inspect "$image" --format '{{.Config.User}}|{{.Config.WorkingDir}}|{{json .Config.Entrypoint}}')
[ "$got" = "$uid:$uid|/workspace|[\"/usr/local/bin/rubichan\"]" ] || fail "user|workdir|entrypoint: $got"
lv=$(podman image inspect "$image" --format '{{index .Config.Labels "org.opencontainers.image.version"}}')
lr=$(podman image inspect "$image" --format '{{index .Config.Labels "org.opencontainers.image.revision"}}')
[ "$lv" = "$version" ] && [ "$lr" = "$revision" ] || fail "labels: version $lv revision $lr, want $version $revision"
[ "$(podman run --rm --entrypoint id "$image" -u)" = "$uid" ] || fail "the container does not run as uid $uid"
podman run --rm "$image" version | grep -q "^rubichan version $version" || fail "rubichan version in the container"
# git clones over https (an init container's checkout): a refused
# connection, not a missing helper or library.
out=$(podman run --rm --network=host --entrypoint git "$image" ls-remote https://127.0.0.1:9/x.git 2>&1 || true)
case $out in *"Failed to connect"*|*"Could not connect"*|*"Connection refused"*) ;; *) fail "git over https: $out" ;; esac
echo "image-check: user $uid, /workspace, labels version=$version revision=$revision: ok"

# serve SCRIPT: the scripted model server on 127.0.0.1 (the container
# shares the host network); sets url.
serve() {
  [ -z "$server" ] || { kill "$server"; wait "$server" 2>/dev/null || true; }
  rm -f "$work/url"
  "$llmserve" -url-file "$work/url" "$1" >/dev/null &
  server=$!
  for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.05; done
  url=$(cat "$work/url")
}

# fresh_ws [OWNER]: a workspace, a git checkout with a fixed commit, so
# that both runs patch the same base; for the container owned by its uid,
# as docs/scale-out.md says a mounted workspace must be.
fresh_ws() {
  rm -rf "$work/ws" "$work/out"; mkdir -p "$work/ws" "$work/out"
  printf 'hello\n' > "$work/ws/greet.txt"
  (cd "$work/ws" && git init -q && git add . &&
    GIT_AUTHOR_DATE="@1700000000 +0000" GIT_COMMITTER_DATE="@1700000000 +0000" git -c user.name=t -c user.email=t@t commit -qm base)
  [ -z "${1:-}" ] || chown -R "$1" "$work/ws" "$work/out"
}

# case NAME SCRIPT ARGS...: the run in the container and on the host, the
# same exit code and the same result (volatile fields aside) and patch.
case_() {
  local name=$1 script=$2; shift 2
  local c h
  fresh_ws "$uid:$uid"; serve "$script"
  set +e
  podman run --rm --network=host -v "$work/ws:/workspace" -v "$work/out:/out" \
    -e ANTHROPIC_API_KEY=image-check-key -e ANTHROPIC_BASE_URL="$url" \
    "$image" exec --output json --no-session "$@" > "$work/$name.container.json" 2> "$work/$name.container.err"
  c=$?
  set -e
  [ ! -f "$work/out/fix.patch" ] || mv "$work/out/fix.patch" "$work/$name.container.patch"
  fresh_ws; serve "$script"
  set +e
  (cd "$work/ws" && ANTHROPIC_API_KEY=image-check-key ANTHROPIC_BASE_URL="$url" \
    "$bin" exec --output json --no-session "${@//\/out\//$work/out/}" ) > "$work/$name.host.json" 2> "$work/$name.host.err"
  h=$?
  set -e
  [ ! -f "$work/out/fix.patch" ] || mv "$work/out/fix.patch" "$work/$name.host.patch"
  [ "$c" = "$h" ] || { cat "$work/$name.container.err" >&2; fail "$name: exit $c in the container, $h on the host"; }
  # The result without what differs between two runs (times, ids, paths).
  local strip='s/"(ts|session_id|duration_ms|session_path|path)":("[^"]*"|[0-9]+|null)//g'
  sed -E "$strip" "$work/$name.container.json" > "$work/$name.c"
  sed -E "$strip" "$work/$name.host.json" > "$work/$name.h"
  cmp -s "$work/$name.c" "$work/$name.h" || { diff "$work/$name.c" "$work/$name.h" >&2; fail "$name: the results differ"; }
  echo "image-check: $name: exit $c in the container and on the host, same result"
  code=$c
}

case_ text "$here/text.json" "say hello"
[ "$code" = 0 ] && grep -q '"final_text":"Hello from the model."' "$work/text.container.json" || fail "text: $(cat "$work/text.container.json")"

case_ patch "$here/patch.json" --patch /out/fix.patch --allow 'write:**' "fix the greeting"
[ "$code" = 0 ] || fail "patch: exit $code"
[ -s "$work/patch.container.patch" ] || fail "patch: no patch written by the container"
cmp "$work/patch.container.patch" "$work/patch.host.patch" || fail "patch: the patches differ"
fresh_ws
git -C "$work/ws" apply --check "$work/patch.container.patch" || fail "patch: it does not apply"
grep -q '^+hello, world$' "$work/patch.container.patch" || fail "patch: not the change"
echo "image-check: patch: the container's patch is the host's and applies"

case_ denial "$here/denial.json" --on-ask abort "fetch the page"
[ "$code" = 3 ] && grep -q '"status":"denied"' "$work/denial.container.json" || fail "denial: exit $code, $(cat "$work/denial.container.json")"

# The sandbox in the container: podman's default seccomp profile allows
# Landlock and user namespaces, so the sandbox is whole. A profile without
# the landlock calls (as some runtimes' defaults): auto says so in one line
# and goes on, required fails closed (exit 2).
podman run --rm "$image" sandbox check > "$work/sb.txt" || { cat "$work/sb.txt"; fail "sandbox check"; }
echo "image-check: sandbox check under podman's default seccomp profile (rootful):"; sed 's/^/  /' "$work/sb.txt"
sed '/"landlock_[a-z_]*",/d' /usr/share/containers/seccomp.json > "$work/nolandlock.json"
! grep -q landlock "$work/nolandlock.json" || fail "could not make the seccomp profile without Landlock"
serve "$here/text.json"
podman run --rm --network=host --security-opt seccomp="$work/nolandlock.json" -e ANTHROPIC_API_KEY=k -e ANTHROPIC_BASE_URL="$url" \
  "$image" exec --no-session --sandbox auto "say hello" > "$work/auto.out" 2> "$work/auto.err" || fail "sandbox auto: $(cat "$work/auto.err")"
[ "$(grep -c 'sandbox auto: landlock unavailable (under a seccomp filter' "$work/auto.err")" = 1 ] || fail "sandbox auto: no one-line note: $(cat "$work/auto.err")"
echo "image-check: --sandbox auto, Landlock blocked by seccomp: $(grep 'sandbox auto' "$work/auto.err")"
set +e
podman run --rm --network=host --security-opt seccomp="$work/nolandlock.json" -e ANTHROPIC_API_KEY=k -e ANTHROPIC_BASE_URL="$url" \
  "$image" exec --no-session --sandbox required "say hello" > "$work/req.out" 2> "$work/req.err"
rc=$?
set -e
[ "$rc" = 2 ] && [ ! -s "$work/req.out" ] && grep -q "seccomp filter" "$work/req.err" || fail "sandbox required with Landlock blocked: exit $rc: $(cat "$work/req.err")"
echo "image-check: --sandbox required, Landlock blocked by seccomp: exit 2: $(cat "$work/req.err")"

# Reproducible: a second build of the same inputs has the same digest.
first=$(podman image inspect "$image" --format '{{.Id}} {{.Digest}}')
second_id=$("$here/build.sh" "$bin" "$version" "$revision" "$epoch" localhost/rubichan-check:again)
second=$(podman image inspect localhost/rubichan-check:again --format '{{.Id}} {{.Digest}}')
podman rmi localhost/rubichan-check:again >/dev/null 2>&1 || true
[ "$first" = "$second" ] || fail "two builds of the same inputs differ: $first vs $second"
echo "image-check: reproducible: two builds, same image id and digest: $first ($second_id)"
echo "image-check: ok"
