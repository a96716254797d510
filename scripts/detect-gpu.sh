#!/usr/bin/env bash
# Prints the GPU backend to build the embedded model with (`make build`,
# `make run`, `make package` with GPU=auto, the default):
#   metal   on macOS (Apple GPUs);
#   cuda    where NVIDIA's CUDA compiler (nvcc) is installed;
#   vulkan  where an NVIDIA, AMD or Intel GPU is present (setup then
#           installs the Vulkan headers, loader, drivers and glslc);
#   none    otherwise: the CPU.
set -euo pipefail
if [ "$(uname -s)" = Darwin ]; then echo metal; exit 0; fi
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then echo cuda; exit 0; fi
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then echo vulkan; exit 0; fi
for vendor in /sys/class/drm/card*/device/vendor; do
  case "$(cat "$vendor" 2>/dev/null)" in
    0x10de | 0x1002 | 0x8086) echo vulkan; exit 0 ;; # NVIDIA, AMD, Intel
  esac
done
echo none
