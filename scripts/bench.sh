#!/usr/bin/env bash
# `make bench`: every figure as a ratio against a baseline measured in the
# same run (these machines are noisy; absolute numbers drift).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CARGO_TARGET_DIR:=$HOME/.cache/baton-target}"
export CARGO_TARGET_DIR

echo "== stream parsing (criterion): Baton's decoder vs a plain line split of the same 10 MB =="
cargo bench -p baton-llm --bench stream_parse -- --noplot 2>&1 | grep -E '^[a-z_]+/|time:|thrpt:' || true
python3 scripts/bench_ratios.py "$CARGO_TARGET_DIR/criterion"

echo
echo "== tool calls (criterion): repair + validate + dispatch, and the manual for 100 methods, vs serde_json::from_str =="
cargo bench -p baton-tools --bench dispatch -- --noplot 2>&1 | grep -E '^[a-z_0-9]+/|time:' || true
python3 scripts/bench_ratios.py "$CARGO_TARGET_DIR/criterion"

echo
echo "== baton ask start-up vs curl (release build, scripted server) =="
cargo build --release -p baton-cli -p baton-scripted-llm --bins 2>&1 | tail -1
"$CARGO_TARGET_DIR/release/baton-bench-ask" --baton "$CARGO_TARGET_DIR/release/baton" --runs 30

echo
echo "== embedded model (SmolLM2-135M Q4_1, 2 threads, greedy): Baton's local provider vs llama-cpp-python =="
: "${BATON_MODELS_DIR:=${XDG_DATA_HOME:-$HOME/.local/share}/baton/models}"
export BATON_MODELS_DIR
if ! python3 -c "import llama_cpp" 2>/dev/null; then
  echo "installing llama-cpp-python from source (one time, several minutes)"
  python3 -m pip install --quiet --no-binary llama-cpp-python "llama-cpp-python==0.3.36"
fi
# The dev profile builds llama.cpp optimized (dependencies run at opt-level 2,
# cmake in Release), so this reuses the test build instead of a second one.
cargo build -p baton-local --bins 2>&1 | tail -1
baton_json=$("$CARGO_TARGET_DIR/debug/baton-local-bench")
python_json=$(python3 scripts/bench_llama_cpp_python.py)
python3 - "$baton_json" "$python_json" <<'PY'
import json, sys
b, p = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"prompt: {b['promptTokens']} tokens (Baton) / {p['promptTokens']} (llama-cpp-python), {b['threads']} threads")
for k, label, higher in [("promptTokensPerSec", "prompt processing tokens/s", True),
                         ("generationTokensPerSec", "generation tokens/s", True),
                         ("warmTtftMs", "time to first token, warm (ms)", False),
                         ("coldTtftMs", "time to first token, cold incl. load (ms)", False),
                         ("peakRssMb", "peak RSS (MB)", False)]:
    ratio = b[k] / p[k] if p[k] else float("nan")
    print(f"  {label:<42} Baton {b[k]:8.1f}   llama-cpp-python {p[k]:8.1f}   ratio {ratio:.2f}")
PY
