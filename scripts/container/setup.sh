#!/usr/bin/env bash
# Podman for this project on a machine without a Docker engine or a systemd session (CI runs as
# root): writes .container/containers.conf (runc, cgroupfs, events to a file, host networking,
# explicit ulimits) and, only when Podman's default storage does not work, .container/storage.conf
# (overlay through fuse-overlayfs, else vfs), then checks that Podman answers. Idempotent; nothing outside the checkout is changed.
# Exit status: 0 ready, 3 Podman or runc missing, 1 Podman does not work with this configuration.
set -euo pipefail
# shellcheck source=scripts/container/env.sh
. "$(dirname "$0")/env.sh"

for tool in podman runc; do
  if ! command -v "$tool" > /dev/null && ! [ -x "/usr/sbin/$tool" ]; then
    echo "setup: $tool is not installed (apt-get install podman runc uidmap fuse-overlayfs slirp4netns)" >&2
    exit 3
  fi
done
runc_path="$(command -v runc || echo /usr/sbin/runc)"
mkdir -p "$SOFTSHELF_CONTAINER_DIR"

# The default ulimits ask for more than an unprivileged container here may have ("setrlimit …
# operation not permitted"): give each container the hard limits this shell has.
limit() {
  local value="$1" cap="$2"
  if [ "$value" = unlimited ] || [ "$value" -gt "$cap" ]; then echo "$cap"; else echo "$value"; fi
}
nofile="$(limit "$(ulimit -Hn)" 1048576)"
nproc="$(limit "$(ulimit -Hu)" 32768)"

conf="$SOFTSHELF_CONTAINER_DIR/containers.conf"
cat > "$conf.tmp" <<CONF
# Written by scripts/container/setup.sh; used through CONTAINERS_CONF. Regenerated on every run.
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
netns = "host"
log_driver = "k8s-file"

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"

[engine.runtimes]
runc = ["$runc_path"]
CONF
mv "$conf.tmp" "$conf"
export CONTAINERS_CONF="$conf"

if [ "$(id -u)" -eq 0 ]; then
  graphroot="/var/lib/containers/storage"
  runroot="/run/containers/storage"
else
  graphroot="${XDG_DATA_HOME:-$HOME/.local/share}/containers/storage"
  runroot="${XDG_RUNTIME_DIR:-/tmp/containers-$(id -u)}/containers"
fi

write_storage() {
  local driver="$1" mount_program="${2:-}"
  {
    echo "# Written by scripts/container/setup.sh; used through CONTAINERS_STORAGE_CONF."
    echo "[storage]"
    echo "driver = \"$driver\""
    echo "graphroot = \"$graphroot\""
    echo "runroot = \"$runroot\""
    if [ -n "$mount_program" ]; then
      echo "[storage.options.overlay]"
      echo "mount_program = \"$mount_program\""
    fi
  } > "$storage"
  export CONTAINERS_STORAGE_CONF="$storage"
}

# A store remembers the driver it was made with, and the cleanup podman that conmon runs when a
# container ends names the configured driver explicitly: a storage.conf naming "overlay" for a store
# made without one breaks that cleanup ("database configuration mismatch", `podman wait` then
# hangs 20 s). So: keep a storage.conf that works, else Podman's defaults when they work (no
# storage.conf), else overlay through fuse-overlayfs, else vfs.
storage="$SOFTSHELF_CONTAINER_DIR/storage.conf"
if [ -f "$storage" ] && CONTAINERS_STORAGE_CONF="$storage" podman info > /dev/null 2>&1; then
  export CONTAINERS_STORAGE_CONF="$storage"
elif podman info > /dev/null 2>&1; then
  rm -f "$storage"
else
  ok=""
  candidates=()
  fuse="$(command -v fuse-overlayfs || true)"
  [ -n "$fuse" ] && candidates+=("overlay:$fuse")
  candidates+=("vfs:")
  for candidate in "${candidates[@]}"; do
    write_storage "${candidate%%:*}" "${candidate#*:}"
    if podman info > /dev/null 2>&1; then ok=1; break; fi
  done
  if [ -z "$ok" ]; then
    rm -f "$storage"
    echo "setup: podman does not work here; its answer:" >&2
    podman info >&2 || true
    exit 1
  fi
fi

echo "setup: podman $(podman version --format '{{.Client.Version}}') ready ($(podman info --format '{{.Store.GraphDriverName}}') storage, runc, cgroupfs); CONTAINERS_CONF=$CONTAINERS_CONF"
