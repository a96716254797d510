#!/usr/bin/env bash
# Prints the GPU backend to build the embedded model with (`make build`,
# `make run`, `make package` with GPU=auto, the default):
#   metal   on macOS (Apple GPUs);
#   cuda    where an NVIDIA GPU answers nvidia-smi and NVIDIA's CUDA
#           compiler (nvcc) is on the PATH;
#   vulkan  where an NVIDIA or AMD GPU is present otherwise (setup then
#           installs the Vulkan headers, loader, drivers and glslc);
#   none    otherwise: the CPU. Intel's integrated GPUs are left out: with
#           every layer on them, small models often run slower than on
#           the CPU (GPU=vulkan chooses them by hand).
set -euo pipefail
if [ "$(uname -s)" = Darwin ]; then echo metal; exit 0; fi
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  if command -v nvcc >/dev/null 2>&1; then echo cuda; else echo vulkan; fi
  exit 0
fi
for vendor in /sys/class/drm/card*/device/vendor; do
  case "$(cat "$vendor" 2>/dev/null)" in
    0x10de | 0x1002) echo vulkan; exit 0 ;; # NVIDIA, AMD
  esac
done
echo none
