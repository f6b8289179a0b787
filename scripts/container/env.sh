# shellcheck shell=bash
# Sourced by the other scripts here: where this project's Podman configuration lives, pointed at
# with CONTAINERS_CONF / CONTAINERS_STORAGE_CONF so a developer's own Podman set-up is not changed.
# SOFTSHELF_CONTAINER_DIR moves it (default: .container/ in the checkout, ignored by git).
SOFTSHELF_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SOFTSHELF_CONTAINER_DIR="${SOFTSHELF_CONTAINER_DIR:-$SOFTSHELF_ROOT/.container}"
SOFTSHELF_BASE_IMAGE="${SOFTSHELF_BASE_IMAGE:-localhost/softshelf-base:node24-bookworm}"
SOFTSHELF_IMAGE="${SOFTSHELF_IMAGE:-localhost/softshelf:latest}"
if [ -f "$SOFTSHELF_CONTAINER_DIR/containers.conf" ]; then
  export CONTAINERS_CONF="$SOFTSHELF_CONTAINER_DIR/containers.conf"
fi
if [ -f "$SOFTSHELF_CONTAINER_DIR/storage.conf" ]; then
  export CONTAINERS_STORAGE_CONF="$SOFTSHELF_CONTAINER_DIR/storage.conf"
fi
export SOFTSHELF_ROOT SOFTSHELF_CONTAINER_DIR SOFTSHELF_BASE_IMAGE SOFTSHELF_IMAGE
