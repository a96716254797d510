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
echo "== engine overhead per turn (criterion): open a conversation, send, stream, finish vs the provider called directly, scripted server, zero delay =="
cargo bench -p baton-engine --bench turn -- --noplot 2>&1 | grep -E '^turn/|time:' || true
python3 scripts/bench_ratios.py "$CARGO_TARGET_DIR/criterion" | grep '^turn:' || true
python3 - "$CARGO_TARGET_DIR/criterion/turn" <<'PY'
import json, pathlib, sys
d = pathlib.Path(sys.argv[1])
med = lambda n: json.loads((d / n / "new" / "estimates.json").read_text())["median"]["point_estimate"]
over = (med("engine_open_send_stream_finish") - med("provider_direct_baseline")) / 1e6
print(f"engine overhead per turn (median difference): {over:.3f} ms (goal under 1 ms)")
PY

echo
echo "== plugins: a tool call through a stdio plugin (official Python MCP SDK) vs the same tool in-process; start-up with 10 plugins vs none =="
cargo bench -p baton-mcp --bench plugins 2>&1 | grep -E '^(tool call|start-up)' || true

echo
echo "== orchestration: a team of 5 agents vs the same model calls as plain turns (zero delay); parallel vs sequential with 200 ms per call =="
cargo bench -p baton-engine --bench team 2>&1 | grep -E '^(orchestration|200 ms)' || true

echo
echo "== scheduled tasks: how late a due task starts (known ahead, and made by another process), against the run itself; scripted server, zero delay =="
cargo bench -p baton-engine --bench scheduler 2>&1 | grep -E '^scheduler wake-up' || true

echo
echo "== deep research: the offline site (30 pages) with the scripted model at 20 ms per token, sources read one at a time (baseline) vs four at once =="
cargo bench -p baton-engine --bench research 2>&1 | grep -E '^research' || true

echo
echo "== local models: a catalog download vs curl from the same loopback server; start-up with the local-server probes vs without =="
cargo bench -p baton-engine --bench models 2>&1 | grep -E '^(pull throughput|start-up with)' || true

echo
echo "== workbooks: each edit and save of the 95 real-world workbooks (scripts/workbook-corpus.sh) vs openpyxl loading, setting one cell and saving the same files =="
scripts/workbook-corpus.sh
corpus_runs=$(mktemp)
cargo bench -p baton-sheet --bench corpus 2>/dev/null | grep '^{' > "$corpus_runs" || true
FIXTURES_VENV="${BATON_FIXTURES_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/baton-fixtures-venv}"
"$FIXTURES_VENV/bin/python" scripts/bench_openpyxl_save.py "${BATON_WORKBOOK_CORPUS:-${XDG_CACHE_HOME:-$HOME/.cache}/baton-workbook-corpus}" \
  | sed 's/^{/{"edit": "openpyxl", /' >> "$corpus_runs"
python3 - "$corpus_runs" <<'PY'
import json, sys
rows = {r["edit"]: r for r in map(json.loads, open(sys.argv[1]))}
o, c = rows["openpyxl"], rows["cell"]
fps = lambda r, n: n / r["seconds"] if r["seconds"] else float("inf")
print(f"cell edit and save: Baton {fps(c, c['files']):.1f} files/s, openpyxl {fps(o, o['saved']):.1f} files/s "
      f"(ratio {fps(c, c['files']) / fps(o, o['saved']):.1f}); written in place in {c['in_place']}/{c['files']}, every other part byte-identical in {c['other_parts_identical']}/{c['files']} "
      f"(Baton); openpyxl's save loses parts in {o['losing_parts']}/{o['saved']} and fails on {o['failed']}")
for k, r in rows.items():
    if k in ("openpyxl", "cell"):
        continue
    n = r["files"]
    print(f"  {k:<14} in place {r['in_place'] / n:6.1%}   through the model {r['through_model'] / n:6.1%}   refused {r['refused'] / n:6.1%}")
PY
rm -f "$corpus_runs"

echo
echo "== embeddings: all-MiniLM-L6-v2 (int8) over 512 passages, Baton (ort + tokenizers) vs the Python onnxruntime with the same files =="
scripts/fetch-embed.sh
EMBED_VENV="${XDG_CACHE_HOME:-$HOME/.cache}/baton-embed-bench-venv"
if [ ! -x "$EMBED_VENV/bin/python" ] || ! "$EMBED_VENV/bin/python" -c 'import onnxruntime, tokenizers, numpy' 2>/dev/null; then
  python3 -m venv "$EMBED_VENV"
  "$EMBED_VENV/bin/pip" install --quiet --disable-pip-version-check onnxruntime==1.32.0 tokenizers==0.22.1 numpy==2.2.6
fi
embed_texts=$(mktemp)
python3 - "$embed_texts" <<'PY'
import random, sys
words = ("harbour pilot fee invoice budget review quarter port ship cargo crane berth tide "
         "customs manifest container vessel schedule delay weather contract payment report").split()
rng = random.Random(7)
with open(sys.argv[1], "w") as f:
    for _ in range(512):
        f.write(" ".join(rng.choice(words) for _ in range(rng.randint(40, 120))) + "\n")
PY
models="${BATON_MODELS_DIR:-${BATON_DATA_DIR:+$BATON_DATA_DIR/models}}"
models="${models:-${XDG_DATA_HOME:-$HOME/.local/share}/baton/models}"
embed_runs=$(mktemp)
BATON_EMBED_TEXTS="$embed_texts" cargo bench -p baton-embed --bench throughput 2>/dev/null | grep '^{' >> "$embed_runs" || true
"$EMBED_VENV/bin/python" scripts/bench_embed.py "$models" "$embed_texts" >> "$embed_runs"
python3 - "$embed_runs" <<'PY'
import json, sys
r = {x["runtime"]: x for x in map(json.loads, open(sys.argv[1]))}
b, p = r["baton"], r["python"]
print(f"embedding: Baton {b['per_second']} passages/s, Python onnxruntime {p['per_second']} passages/s (ratio {b['per_second'] / p['per_second']:.2f})")
PY
rm -f "$embed_texts" "$embed_runs"

echo
echo "== baton ask start-up vs curl (release build, scripted server) =="
cargo build --release -p baton-cli -p baton-scripted-llm -p baton-index --bins 2>&1 | tail -1
"$CARGO_TARGET_DIR/release/baton-bench-ask" --baton "$CARGO_TARGET_DIR/release/baton" --runs 30

echo
echo "== HTTP API: 200 concurrent streaming requests through baton serve vs the scripted server directly vs LiteLLM's proxy; memory per idle session =="
LITELLM_VENV="${XDG_CACHE_HOME:-$HOME/.cache}/baton-litellm-venv"
if [ ! -x "$LITELLM_VENV/bin/litellm" ]; then
  echo "installing LiteLLM's proxy into $LITELLM_VENV (one time, a few minutes)"
  python3 -m venv "$LITELLM_VENV"
  "$LITELLM_VENV/bin/pip" install --quiet --disable-pip-version-check "litellm[proxy]==1.108.7"
fi
python3 scripts/bench_server.py --baton "$CARGO_TARGET_DIR/release/baton" \
  --scripted "$CARGO_TARGET_DIR/release/baton-scripted-llm" --load "$CARGO_TARGET_DIR/release/baton-bench-load" \
  --litellm "$LITELLM_VENV/bin/litellm"

echo
echo "== embedded model (SmolLM2-135M Q4_1, 2 threads, greedy): Baton's local provider vs llama-cpp-python =="
: "${BATON_MODELS_DIR:=${XDG_DATA_HOME:-$HOME/.local/share}/baton/models}"
export BATON_MODELS_DIR
if ! python3 -c "import llama_cpp" 2>/dev/null; then
  echo "installing llama-cpp-python from source (one time, several minutes)"
  # Built for this CPU's vector extensions but without AMX: llama.cpp's AMX
  # kernels crash (SIGSEGV in ggml_backend_amx_mul_mat) on this VM's CPU,
  # which reports AMX, so GGML_NATIVE (which turns AMX on) cannot be used.
  cpu_flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
  cmake_args="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
  for pair in avx512f:AVX512 avx512vbmi:AVX512_VBMI avx512_vnni:AVX512_VNNI avx512_bf16:AVX512_BF16 avx_vnni:AVX_VNNI; do
    if grep -qw "${pair%%:*}" <<<"$cpu_flags"; then cmake_args+=" -DGGML_${pair##*:}=ON"; fi
  done
  CMAKE_ARGS="$cmake_args" python3 -m pip install --quiet --no-binary llama-cpp-python "llama-cpp-python==0.3.36"
fi
# The dev profile builds llama.cpp optimized (dependencies run at opt-level 2,
# cmake in Release), so this reuses the test build instead of a second one.
# Two builds: the kernels compiled in for x86-64-v3 (no features), then the
# test build's features (make passes them: the CPU kernels chosen at run time
# on Linux); each is cached in the target directory after its first time.
static_dir=$(mktemp -d)
static_bench="$static_dir/baton-local-bench"
cargo build -p baton-local --bins 2>&1 | tail -1
cp "$CARGO_TARGET_DIR/debug/baton-local-bench" "$static_bench"
# shellcheck disable=SC2086 # BATON_CARGO_FEATURES is "--features x" or empty
cargo build -p baton-local --bins ${BATON_CARGO_FEATURES:-} 2>&1 | tail -1
# Alternate the three three times (this machine is noisy) and compare medians.
runs=$(mktemp)
for _ in 1 2 3; do
  "$CARGO_TARGET_DIR/debug/baton-local-bench" >> "$runs"
  "$static_bench" | sed 's/"impl":"baton"/"impl":"baton-compiled-in"/' >> "$runs"
  python3 scripts/bench_llama_cpp_python.py >> "$runs"
done
python3 - "$runs" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def med(impl, k):
    return statistics.median(r[k] for r in rows if r["impl"] == impl)
b0 = next(r for r in rows if r["impl"] == "baton")
s0 = next(r for r in rows if r["impl"] == "baton-compiled-in")
p0 = next(r for r in rows if r["impl"] == "llama-cpp-python")
print(f"prompt: {b0['promptTokens']} tokens (Baton) / {p0['promptTokens']} (llama-cpp-python), {b0['threads']} threads, medians of 3 alternating runs")
print(f"Baton's CPU kernels: {b0['kernels']} (build as tested) and {s0['kernels']}; llama-cpp-python built for this CPU (no AMX)")
for k, label in [("promptTokensPerSec", "prompt processing tokens/s"),
                 ("generationTokensPerSec", "generation tokens/s"),
                 ("warmTtftMs", "time to first token, warm (ms)"),
                 ("coldTtftMs", "time to first token, cold incl. load (ms)"),
                 ("peakRssMb", "peak RSS (MB)")]:
    b, s, p = med("baton", k), med("baton-compiled-in", k), med("llama-cpp-python", k)
    print(f"  {label:<42} Baton {b:8.1f} (ratio {b / p:.2f})   compiled-in {s:8.1f} (ratio {s / p:.2f})   llama-cpp-python {p:8.1f}")
PY
rm -rf "$runs" "$static_dir"

echo
echo "== embedded model answers: 30 simple questions, Baton's prompt vs llama-cpp-python with the model's own template =="
cargo build --release -p baton-cli 2>&1 | tail -1
python3 scripts/eval_small_model.py --baton "$CARGO_TARGET_DIR/release/baton"

echo
echo "== tool-call validity with and without the grammar (30 FileTool prompts, embedded model) =="
cargo nextest run -p baton-local grammar_constrained --no-capture 2>&1 | grep -E 'tool-call validity' || true

echo
echo "== file to Markdown: baton convert vs Microsoft markitdown on the fixture corpus (throughput, fidelity to ground truth, tables) =="
if ! python3 -c "import markitdown" 2>/dev/null; then
  echo "installing markitdown (one time)"
  python3 -m pip install --quiet "markitdown[docx,pdf,pptx,xlsx,xls,outlook]==0.1.9"
fi
python3 scripts/bench_convert.py --baton "$CARGO_TARGET_DIR/release/baton" --runs 5

echo
echo "== workspace search: index build rate, query latency, save-to-searchable (10,000 generated documents) =="
"$CARGO_TARGET_DIR/release/baton-index-bench" 10000 | grep -v '^{'

echo
echo "== search quality and search by meaning at scale: nDCG@10/recall@10 of BM25, vectors and hybrid on the paraphrase set; 10,000 documents with vectors (time, disk, memory, p95 vs words alone) =="
"$CARGO_TARGET_DIR/release/baton-search-quality" tests/fixtures/paraphrase "$BATON_MODELS_DIR" 10000 | grep -v '^{'

echo
echo "== memory recall per model call: 10,000 memories vs 10 (goal < 20 ms) =="
cargo bench -p baton-memory --bench recall 2>/dev/null | grep -v '^{' || true

echo
echo "== import of a 2,000-conversation ChatGPT export vs parsing its JSON alone (goal < 30 s) =="
cargo bench -p baton-transfer --bench import 2>/dev/null | grep -v '^{' || true

echo
echo "== desktop app vs a minimal Tauri window (same tauri, features and release profile) =="
make --no-print-directory ui >/dev/null
cargo build --release -p baton-desktop -p baton-bench-minimal-window 2>&1 | tail -1
node tests/e2e/bench.mjs --app "$CARGO_TARGET_DIR/release/baton-desktop" \
  --minimal "$CARGO_TARGET_DIR/release/baton-bench-minimal-window" --runs 5 | grep -v '^\['

echo
echo "== UI: 20,000 streamed tokens and a 2,000-message chat in Chromium (longest main-thread task) =="
(cd ui && npm run --silent build:mock >/dev/null && node tests/browser/run.mjs perf | grep '^PERF')

echo
echo "== text to speech: baton say (eSpeak NG in-process, sentence by sentence) vs the espeak-ng command on the same text =="
cargo build --release -p baton-cli 2>&1 | tail -1
python3 - "$CARGO_TARGET_DIR/release/baton" <<'PY'
import subprocess, sys, tempfile, time, wave, os, statistics
baton = sys.argv[1]
text = ("Revenue grew by 12 percent compared with the previous quarter. The north region grew fastest, "
        "followed by the south. Dr. Smith will present the numbers on Friday at 3 p.m. "
        "Please read the attached report before the meeting. ") * 3
d = tempfile.mkdtemp()
def run(cmd, out):
    t = time.perf_counter(); subprocess.run(cmd, check=True, capture_output=True); dt = time.perf_counter() - t
    with wave.open(out) as w:
        return dt, w.getnframes() / w.getframerate()
b, e = [], []
for i in range(5):
    b.append(run([baton, "say", "--out", f"{d}/b.wav", text], f"{d}/b.wav"))
    e.append(run(["espeak-ng", "-v", "en-us", "-s", "175", "-w", f"{d}/e.wav", text], f"{d}/e.wav"))
bt, ba = statistics.median(x[0] for x in b), b[0][1]
et, ea = statistics.median(x[0] for x in e), e[0][1]
print(f"baton say: {bt*1000:.0f} ms for {ba:.1f} s of speech (real-time factor {bt/ba:.3f}); "
      f"espeak-ng command: {et*1000:.0f} ms for {ea:.1f} s ({et/ea:.3f}); ratio {bt/et:.2f}x, medians of 5")
PY

echo
echo "== text to speech: the natural voice (Piper en_US-joe-medium on ONNX Runtime) vs eSpeak NG, same 12 sentences: first audio of a sentence, real-time factor, Whisper tiny.en's word error rate =="
cargo build --release -p baton-stt --bins 2>&1 | tail -1
cargo bench -p baton-voice --bench tts 2>/dev/null | grep -v '^ *Running'

echo
echo "== speech to text: whisper.cpp (f16, q8_0, q5_0; 30 s or fitted encoder window) vs faster-whisper int8, same 30 clips, 2 threads, greedy =="
cargo build --release -p baton-stt --bins 2>&1 | tail -1
"$CARGO_TARGET_DIR/release/baton-stt-bench" --models "$BATON_MODELS_DIR" --threads 2 --beam-size 1 2>/dev/null

echo
echo "== voice: time to first audio after the end of speech, and its parts (answer streamed at 20 ms/token) =="
cargo build --release -p baton-cli -p baton-stt -p baton-scripted-llm --bins 2>&1 | tail -1
python3 scripts/bench_voice.py --baton "$CARGO_TARGET_DIR/release/baton" \
  --scripted "$CARGO_TARGET_DIR/release/baton-scripted-llm" --runs 5

echo
echo "== spreadsheets: baton sheet describe of 100,000 rows vs openpyxl read-only; open + edit one cell + save of a 10 MB workbook vs openpyxl =="
scripts/make-fixtures.sh --tools-only
"${BATON_FIXTURES_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/baton-fixtures-venv}/bin/python" scripts/bench_sheet.py \
  --baton "${BATON_BIN:-$CARGO_TARGET_DIR/release/baton}" --runs 3

echo
echo "== browser: page -> Markdown of a large page vs turndown and markdownify; navigate + read of a small page (headless Chromium) =="
cargo build --release -p baton-web --bins 2>&1 | tail -1
"${BATON_FIXTURES_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/baton-fixtures-venv}/bin/python" scripts/bench_web.py \
  --bench "${BATON_WEB_BENCH:-$CARGO_TARGET_DIR/release/baton-web-bench}" --runs 5

echo
echo "== documents: Markdown -> PDF of a 20-page report with 5 Mermaid diagrams vs mermaid-cli + pandoc (WeasyPrint) =="
cargo build --release -p baton-cli 2>&1 | tail -1
"${BATON_FIXTURES_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/baton-fixtures-venv}/bin/python" scripts/bench_docs.py \
  --baton "${BATON_BIN:-$CARGO_TARGET_DIR/release/baton}" --runs 3

echo
echo "== e-mail: list the 10 newest + read one, Baton vs Python imaplib, on a real Dovecot (1,000 messages; then 10 with 2 MB attachments) =="
python3 scripts/bench_mail.py --baton "${BATON_BIN:-$CARGO_TARGET_DIR/release/baton}" --runs 5
