#!/usr/bin/env bash
# Builds the Softshelf image with podman, offline but for the npm registry: on the local base image
# (base.sh), `--pull=never`, Docker format (OCI drops HEALTHCHECK), host networking for npm, the
# host's npm registry, and the CA bundle npm trusts (NODE_EXTRA_CA_CERTS) as a build secret, never
# in a layer. Tags $SOFTSHELF_IMAGE (localhost/softshelf:latest); extra arguments go to podman build.
set -euo pipefail
# shellcheck source=scripts/container/env.sh
. "$(dirname "$0")/env.sh"
"$SOFTSHELF_ROOT/scripts/container/setup.sh"
. "$SOFTSHELF_ROOT/scripts/container/env.sh"
"$SOFTSHELF_ROOT/scripts/container/base.sh"

args=(--format docker --pull=never --network host
  --build-arg "BASE_IMAGE=$SOFTSHELF_BASE_IMAGE"
  --build-arg "NPM_REGISTRY=$(npm config get registry)"
  --build-arg "BUILD_ID=${BUILD_ID:-$(git -C "$SOFTSHELF_ROOT" rev-parse --short=12 HEAD 2> /dev/null || echo container)}")
ca="${NODE_EXTRA_CA_CERTS:-}"
[ -n "$ca" ] || [ ! -f /etc/ssl/certs/ca-certificates.crt ] || ca=/etc/ssl/certs/ca-certificates.crt
[ -n "$ca" ] && [ -f "$ca" ] && args+=(--secret "id=ca,src=$ca")

echo "build: $SOFTSHELF_IMAGE from $SOFTSHELF_BASE_IMAGE"
podman build "${args[@]}" --tag "$SOFTSHELF_IMAGE" "$@" "$SOFTSHELF_ROOT"
echo "build: $SOFTSHELF_IMAGE, $(podman image inspect --format '{{.Size}}' "$SOFTSHELF_IMAGE") bytes"
