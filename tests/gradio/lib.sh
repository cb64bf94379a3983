# Shared by tests/gradio/provision and tests/gradio/run (sourced, not executed).
# Where the Debian 13 root and the extracted Gradio sources live, between runs.

GRADIO_VERSIONS=(4.44.1 5.49.1 6.25.0)
GRADIO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CHECKOUT=$(cd "$GRADIO_DIR/../.." && pwd)

if [[ -n "${RIVULET_GRADIO_CACHE:-}" ]]; then
  CACHE=$RIVULET_GRADIO_CACHE
elif [[ $(id -u) -eq 0 ]]; then
  CACHE=/var/cache/rivulet-gradio
else
  CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/rivulet-gradio
fi
ROOT=$CACHE/trixie
STAMP=$ROOT/.rivulet-root-complete
SRC=${RIVULET_GRADIO_SRC:-$CHECKOUT/../shared/gradio}
# Inside the root: /opt/rivulet/gradio-<version> (sources), /opt/rivulet/tests (apps, stubs).
OPT=/opt/rivulet

# The Debian 13 packages that serve Gradio 4.44 to 6.25 (see app/docs/real-gradio.md, "Provisioning").
ROOT_PKGS=(python3 python3-fastapi python3-pydantic python3-starlette python3-uvicorn
  python3-httpx python3-anyio python3-numpy python3-pil python3-pandas python3-orjson
  python3-websockets python3-python-multipart python3-typer python3-tomlkit python3-jinja2
  python3-yaml python3-aiofiles python3-semantic-version python3-packaging
  python3-typing-extensions python3-fsspec python3-brotli python3-markupsafe python3-tz
  python3-audioop-lts python3-rich python3-click python3-shellingham python3-httpcore
  python3-h11 python3-psutil python3-requests python3-tqdm python3-filelock
  python3-matplotlib ca-certificates)

log() { echo "gradio: $*" >&2; }

# The first non-security Debian mirror in this machine's own apt sources.
host_mirror() {
  local f uri
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    while read -r uri; do
      [[ $uri == *security* ]] && continue
      echo "$uri"; return 0
    done < <(awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' "$f")
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' "$f" \
      | grep -v security | head -n 1)
    [[ -n $uri ]] && { echo "$uri"; return 0; }
  done
  return 1
}

# Mount points under the root, deepest first.
ROOT_MOUNTS=(proc sys dev dev/pts)

mount_root() {
  local m
  for m in "${ROOT_MOUNTS[@]}"; do
    mkdir -p "$ROOT/$m"
    mountpoint -q "$ROOT/$m" || mount --bind "/$m" "$ROOT/$m" || return 1
  done
}

unmount_root() {
  local i m
  for ((i = ${#ROOT_MOUNTS[@]} - 1; i >= 0; i--)); do
    m=$ROOT/${ROOT_MOUNTS[i]}
    mountpoint -q "$m" 2>/dev/null && { umount "$m" 2>/dev/null || umount -l "$m"; }
  done
  return 0
}

# Unmounts whatever is still mounted under a directory (a half-built root).
unmount_under() {
  local d=$1 m
  [[ -d $d ]] || return 0
  while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m"
  done < <(awk -v d="$(realpath "$d")" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts | sort -r)
}

# Runs a command in the root with a clean environment.
in_root() {
  chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
}
