#!/usr/bin/env bash
# Builds the rubichan OCI image without pulling a base image: buildah from
# scratch plus a root file system staged here from files of this machine —
# the static binary, CA certificates, git, bash and busybox (the shell
# environment of the bash tool) and the shared libraries they load, taken
# from the Debian packages installed on the machine.
#
# Usage: testdata/image/build.sh BINARY VERSION REVISION EPOCH [TAG...]
#
# Reproducible: same inputs (the binary, the Debian package versions, these
# files), same digest. Every timestamp is EPOCH (the commit time of HEAD, or
# SOURCE_DATE_EPOCH): the files' mtimes in the staged tree and in the
# layer, the image's created time; the history and buildah's identity label
# are left out. It prints the image ID (the digest of its configuration).
set -euo pipefail
bin=$1 version=$2 revision=$3 epoch=$4
shift 4
uid=10001
arch=$(uname -m)

for tool in buildah git bash busybox ldd; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool is needed (apt-get install buildah git busybox-static)" >&2; exit 2; }
done
# busybox-static: a dynamic busybox would drag in more libraries.
if ldd "$(command -v busybox)" >/dev/null 2>&1; then
  echo "build.sh: busybox must be the static one (apt-get install busybox-static)" >&2; exit 2
fi

stage=$(mktemp -d)
ctr=""
trap 'rm -rf "$stage"; [ -z "$ctr" ] || buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
root=$stage/root
mkdir -p "$root"/usr/bin "$root"/usr/local/bin "$root"/usr/lib/git-core "$root"/etc/ssl/certs \
  "$root"/tmp "$root"/workspace "$root"/home/rubichan
# Debian's merged /usr: /bin, /lib and /lib64 are links into /usr.
ln -s usr/bin "$root"/bin
ln -s usr/lib "$root"/lib
ln -s usr/lib64 "$root"/lib64

install -m 0755 "$bin" "$root"/usr/local/bin/rubichan
install -m 0644 /etc/ssl/certs/ca-certificates.crt "$root"/etc/ssl/certs/ca-certificates.crt
install -m 0755 "$(command -v git)" "$root"/usr/bin/git
install -m 0755 "$(command -v bash)" "$root"/usr/bin/bash
install -m 0755 "$(command -v busybox)" "$root"/usr/bin/busybox
# git finds its own programs in its exec path: the tools use builtins
# only; git-remote-https lets an init container clone the workspace.
ln -s ../../bin/git "$root"/usr/lib/git-core/git
install -m 0755 /usr/lib/git-core/git-remote-https "$root"/usr/lib/git-core/git-remote-https
ln -s git-remote-https "$root"/usr/lib/git-core/git-remote-http
ln -s bash "$root"/usr/bin/sh

# The libraries git, git-remote-https and bash load, and the dynamic loader, at the paths
# ldd names (under /usr: the links above make /lib and /lib64 reach them).
for exe in "$(command -v git)" /usr/lib/git-core/git-remote-https "$(command -v bash)"; do
  ldd "$exe" | awk '/=> \//{print $3} /^\t\/lib/{print $1}'
done | sort -u | while read -r lib; do
  real=$(readlink -f "$lib")
  dest=$root/usr${lib#/usr}
  mkdir -p "$(dirname "$dest")"
  install -m 0755 "$real" "$dest"
done

# busybox provides the rest of the shell environment: ls, cat, grep, sed,
# awk, find, diff, patch, … (one link per applet not already there).
for applet in $(busybox --list); do
  case $applet in sh|bash|busybox) continue ;; esac
  [ -e "$root/usr/bin/$applet" ] || ln -s busybox "$root/usr/bin/$applet"
done

cat > "$root"/etc/passwd <<PASSWD
root:x:0:0:root:/root:/usr/bin/sh
rubichan:x:$uid:$uid:rubichan:/home/rubichan:/usr/bin/bash
PASSWD
cat > "$root"/etc/group <<GROUP
root:x:0:
rubichan:x:$uid:
GROUP
# A mounted workspace belongs to whoever made it, seldom uid $uid: git
# would call it dubious and refuse (--patch and the tools need git).
cat > "$root"/etc/gitconfig <<GITCONFIG
[safe]
	directory = *
GITCONFIG
chmod 1777 "$root"/tmp
chmod 0755 "$root"/workspace "$root"/home/rubichan
chown "$uid:$uid" "$root"/workspace "$root"/home/rubichan
find "$root" -exec touch -h -d "@$epoch" {} +

ctr=$(buildah from scratch)
# The tree goes in as one tar of its own, so ownership, modes and links
# are kept as staged.
tar -C "$root" --sort=name --numeric-owner --mtime="@$epoch" -cf "$stage/root.tar" .
buildah add --quiet "$ctr" "$stage/root.tar" / >/dev/null
buildah config \
  --os linux --arch "$(case $arch in x86_64) echo amd64;; aarch64) echo arm64;; *) echo "$arch";; esac)" \
  --user "$uid:$uid" --workingdir /workspace \
  --env PATH=/usr/local/bin:/usr/bin --env HOME=/home/rubichan \
  --entrypoint '["/usr/local/bin/rubichan"]' --cmd '["--help"]' \
  --label org.opencontainers.image.version="$version" \
  --label org.opencontainers.image.revision="$revision" \
  --label org.opencontainers.image.title=rubichan \
  --label org.opencontainers.image.description="rubichan, a headless coding agent, with git, bash and busybox" \
  "$ctr"
first=${1:-}
id=$(buildah commit --quiet --format oci --timestamp "$epoch" --identity-label=false --omit-history \
  "$ctr" ${first:+"$first"})
shift || true
for tag in "$@"; do buildah tag "$id" "$tag"; done
echo "$id"
