#!/usr/bin/env bash
# Builds the lockstep image from this repository: the Debian-made base images when missing
# (build-bases.sh), then deploy/image/Containerfile with buildah. `--isolation chroot` runs the build
# stage's RUN steps without an OCI runtime (this machine's crun refuses to create containers: cgroups in
# hybrid mode), which is also how an unprivileged CI builder runs them.
# Usage: deploy/image/build.sh [TAG]   (default localhost/lockstep:<package.json version>)
set -euo pipefail
cd "$(dirname "$0")/../.."
tag=${1:-localhost/lockstep:$(node -p 'require("./package.json").version')}
for base in runtime build; do
  podman image exists "localhost/lockstep-$base-base:bookworm" || { deploy/image/build-bases.sh; break; }
done
# The machine's CA bundle, for npm's requests in the build stage (its ENV names the path).
ca=/etc/ssl/certs/ca-certificates.crt
mounts=()
[ -f "$ca" ] && mounts=(--volume "$ca:$ca:ro")
buildah bud --quiet --isolation chroot --layers=false "${mounts[@]}" -f deploy/image/Containerfile -t "$tag" . >/dev/null
echo "built $tag"
