# Shared by tests/flatpak/* (sourced, not executed): where the local Debian 13 runtime
# lives between runs, what it is made of, and the names it goes by.
# shellcheck shell=bash

FP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FP_CHECKOUT=$(cd "$FP_DIR/../.." && pwd)
APP_ID=io.github.rivulet.Rivulet

# The runtime the published manifest targets (Flathub's), and the local stand-in.
GNOME_PLATFORM=org.gnome.Platform
GNOME_VERSION=50
DEB_PLATFORM=org.rivulet.DebianPlatform
DEB_SDK=org.rivulet.DebianSdk
DEB_VERSION=13
DEB_REMOTE=rivulet-debian

if [[ -n "${RIVULET_FLATPAK_CACHE:-}" ]]; then
  FP_CACHE=$RIVULET_FLATPAK_CACHE
elif [[ $(id -u) -eq 0 ]]; then
  FP_CACHE=/var/cache/rivulet-flatpak
else
  FP_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/rivulet-flatpak
fi
FP_REPO=$FP_CACHE/repo
FP_STAMP=$FP_REPO/.rivulet-runtime-complete

# Debian 13 (trixie) packages. The Platform is what the app needs at run time;
# the SDK adds what its meson build and flatpak-builder's appstream step need.
PLATFORM_PKGS=(libgtk-4-1 libadwaita-1-0 libsoup-3.0-0 libjson-glib-1.0-0 glib-networking
  libsecret-1-0 libpng16-16t64 zlib1g libgdk-pixbuf-2.0-0 webp-pixbuf-loader librsvg2-common
  shared-mime-info gsettings-desktop-schemas libglib2.0-bin ca-certificates fontconfig
  fonts-cantarell fonts-dejavu-core adwaita-icon-theme hicolor-icon-theme)
SDK_PKGS=("${PLATFORM_PKGS[@]}" gcc libc6-dev pkg-config meson ninja-build gettext python3
  libglib2.0-dev libglib2.0-dev-bin libgtk-4-dev libadwaita-1-dev libsoup-3.0-dev
  libjson-glib-dev libgdk-pixbuf-2.0-dev libpng-dev zlib1g-dev libsecret-1-dev
  desktop-file-utils appstream appstream-util libxml2-utils)

fp_log() { echo "flatpak: $*" >&2; }

# How tests/flatpak/runtime lays a runtime out: bump it when that changes.
RUNTIME_LAYOUT=1

# A stamp's content: what a runtime made now would be made of.
runtime_recipe() {
  echo "layout $RUNTIME_LAYOUT"
  printf 'platform %s\n' "${PLATFORM_PKGS[@]}"
  printf 'sdk %s\n' "${SDK_PKGS[@]}"
}

has_gnome_runtime() {
  flatpak info "$GNOME_PLATFORM//$GNOME_VERSION" >/dev/null 2>&1 &&
    flatpak info "org.gnome.Sdk//$GNOME_VERSION" >/dev/null 2>&1
}
