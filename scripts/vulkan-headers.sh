#!/usr/bin/env bash
# For a Vulkan build (GPU=vulkan): prints the environment that points
# llama.cpp's build at Vulkan headers new enough for its Vulkan backend
# (Vulkan-Hpp 1.3.261+, for VK_EXT_layer_settings). Where the system's
# headers are (Debian 13, Ubuntu 24.04) it prints nothing. Where they are
# older (Debian 12 ships 1.3.239) it unpacks Debian 13's header packages
# (libvulkan-dev, spirv-headers: headers and CMake files only; the system's
# loader, drivers and glslc are used) into Baton's cache, checked by
# SHA-256, and prints VULKAN_SDK and CMAKE_PREFIX_PATH for them.
set -euo pipefail
if grep -qs "struct LayerSettingEXT" /usr/include/vulkan/vulkan_structs.hpp; then
  exit 0
fi
POOL=http://deb.debian.org/debian/pool/main
DEBS=(
  "v/vulkan-loader/libvulkan-dev_1.4.309.0-1_amd64.deb 8d329d465e16168afff58b1bd0dd6db46aac2cc3f56054a481b25a04e90b345a"
  "s/spirv-headers/spirv-headers_1.6.1+1.4.309.0-1_all.deb dc18db866d63680351c40ac6b6bece34cb52da64a7799ce1cc4f16f6bff4d064"
)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/baton-vulkan-1.4.309"
if [ ! -f "$cache/sdk/include/vulkan/vulkan.hpp" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  for entry in "${DEBS[@]}"; do
    read -r path sha <<<"$entry"
    curl -sSfL -o "$tmp/pkg.deb" "$POOL/$path" >&2
    echo "$sha  $tmp/pkg.deb" | sha256sum --check --status || {
      echo "vulkan-headers: SHA-256 of $path does not match" >&2
      exit 1
    }
    dpkg-deb -x "$tmp/pkg.deb" "$tmp/root"
  done
  mkdir -p "$tmp/sdk/lib" "$tmp/sdk/bin"
  mv "$tmp/root/usr/include" "$tmp/sdk/include"
  mv "$tmp/root/usr/share" "$tmp/sdk/share"
  ln -s "/usr/lib/$(gcc -dumpmachine)/libvulkan.so" "$tmp/sdk/lib/libvulkan.so"
  ln -s "$(command -v glslc)" "$tmp/sdk/bin/glslc"
  rm -rf "$cache" && mkdir -p "$cache" && mv "$tmp/sdk" "$cache/sdk"
fi
echo "VULKAN_SDK=$cache/sdk CMAKE_PREFIX_PATH=$cache/sdk"
