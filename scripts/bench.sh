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
