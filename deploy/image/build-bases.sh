#!/usr/bin/env bash
# The two base images the Containerfile starts from, built from Debian 12's own packages on this machine
# (no registry image can be pulled here, and none is needed):
#   localhost/lockstep-runtime-base:bookworm  glibc, libgcc, libstdc++ and the node binary; no shell, no
#                                             package manager; /etc/passwd names the non-root user 10001.
#   localhost/lockstep-build-base:bookworm    the same plus dash (npm runs package scripts through sh) and npm.
# The node binary and npm are this machine's (Node 20, the version package.json's engines asks for): Debian
# 12's own nodejs is 18, too old. Each base is a root filesystem made with `apt-get download` and
# `dpkg-deb -x`, imported with `podman import`. Run as root; needs podman (Debian's package).
set -euo pipefail

RUNTIME_DEBS=(libc6 libgcc-s1 libstdc++6 gcc-12-base)
BUILD_DEBS=(dash)
NODE_BIN=$(readlink -f "$(command -v node)")
NPM_DIR=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")

work=$(mktemp -d /tmp/lockstep-image-bases.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Unpacks the named Debian packages (downloaded into $work/debs) into root filesystem $1.
unpack() {
  local root=$1; shift
  mkdir -p "$root" "$work/debs"
  # apt downloads as its own user when it can; let it write there.
  chmod 0755 "$work"
  if id _apt >/dev/null 2>&1; then chown _apt "$work/debs"; fi
  (cd "$work/debs" && apt-get download "$@" >/dev/null)
  for package in "$@"; do dpkg-deb -x "$work/debs/${package}_"*.deb "$root"; done
}

# The parts every base has: node, a non-root user, a writable /tmp, and the usr-merged /lib64 loader path.
common() {
  local root=$1
  install -D -m 0755 "$NODE_BIN" "$root/usr/bin/node"
  mkdir -p "$root/etc" "$root/tmp" "$root/app"
  chmod 1777 "$root/tmp"
  printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nlockstep:x:10001:10001:lockstep:/app:/usr/sbin/nologin\n' > "$root/etc/passwd"
  printf 'root:x:0:\nlockstep:x:10001:\n' > "$root/etc/group"
  [ -e "$root/lib64" ] || ln -s usr/lib64 "$root/lib64"
}

runtime="$work/runtime"
unpack "$runtime" "${RUNTIME_DEBS[@]}"
common "$runtime"
tar -C "$runtime" -cf "$work/runtime.tar" .
podman import --quiet "$work/runtime.tar" localhost/lockstep-runtime-base:bookworm >/dev/null
echo "built localhost/lockstep-runtime-base:bookworm"

build="$work/build"
unpack "$build" "${RUNTIME_DEBS[@]}" "${BUILD_DEBS[@]}"
common "$build"
ln -sf dash "$build/usr/bin/sh"
[ -e "$build/bin" ] || ln -s usr/bin "$build/bin"
mkdir -p "$build/usr/lib/node_modules"
cp -a "$NPM_DIR" "$build/usr/lib/node_modules/npm"
# npm's own bin files start with `#!/usr/bin/env node`, and this base has no env: wrappers through sh.
for tool in npm npx; do
  printf '#!/bin/sh\nexec /usr/bin/node /usr/lib/node_modules/npm/bin/%s-cli.js "$@"\n' "$tool" > "$build/usr/bin/$tool"
  chmod 0755 "$build/usr/bin/$tool"
done
tar -C "$build" -cf "$work/build.tar" .
podman import --quiet "$work/build.tar" localhost/lockstep-build-base:bookworm >/dev/null
echo "built localhost/lockstep-build-base:bookworm"
