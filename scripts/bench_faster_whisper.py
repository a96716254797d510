#!/usr/bin/env python3
"""The baseline side of the speech-to-text benchmark: faster-whisper
(CTranslate2, int8, CPU) on the clips the Rust side (whisper.cpp) wrote, in
the same run, so the two can be compared as ratios.

Run it through scripts/bench-faster-whisper.sh, which sets up its virtualenv
and the model (Whisper tiny.en, CTranslate2 export) and passes the model
folder as BATON_BENCH_MODEL.

  --clips DIR     *.wav (16 kHz mono 16-bit PCM) and manifest.json:
                  [{"file": "clip01.wav", "text": "reference text"}, ...]
  --out FILE      the result, JSON (see the end of main); a one-line summary
                  goes to stderr.

Timing: the model load on its own; one untimed warm-up on the first clip;
then per clip the fastest of --repeats runs of transcribe() including
consuming its segments generator (the decoding happens there).
"""
import argparse, json, os, sys, time, wave
from importlib.metadata import version

import numpy as np


def read_wav(path):
    """16-bit PCM WAV as float32 in [-1, 1), mono, 16 kHz (stdlib only, no ffmpeg)."""
    with wave.open(path, "rb") as w:
        rate, channels, width = w.getframerate(), w.getnchannels(), w.getsampwidth()
        frames = w.readframes(w.getnframes())
    if width != 2:
        sys.exit(f"{path}: {8 * width}-bit samples; expected 16-bit PCM")
    if rate != 16000:
        sys.exit(f"{path}: {rate} Hz; expected 16000")
    audio = np.frombuffer(frames, dtype="<i2").astype(np.float32) / 32768.0
    if channels > 1:
        audio = audio.reshape(-1, channels).mean(axis=1, dtype=np.float32)
    return audio


def transcribe(model, audio, beam_size):
    segments, _info = model.transcribe(
        audio, language="en", beam_size=beam_size, vad_filter=False,
        condition_on_previous_text=False, without_timestamps=True)
    return "".join(s.text for s in segments).strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clips", required=True, help="folder with *.wav and manifest.json")
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--beam-size", type=int, required=True)
    ap.add_argument("--out", required=True, help="result JSON")
    ap.add_argument("--repeats", type=int, default=1, help="runs per clip; the fastest counts")
    ap.add_argument("--model", default=os.environ.get("BATON_BENCH_MODEL"),
                    help="CTranslate2 Whisper folder (default: $BATON_BENCH_MODEL)")
    args = ap.parse_args()
    if not args.model:
        ap.error("no model: pass --model or run through scripts/bench-faster-whisper.sh")
    if args.repeats < 1 or args.threads < 1 or args.beam_size < 1:
        ap.error("--repeats, --threads and --beam-size must be at least 1")

    with open(os.path.join(args.clips, "manifest.json")) as f:
        manifest = json.load(f)
    if not manifest:
        sys.exit(f"{args.clips}/manifest.json lists no clips")
    clips = [(c["file"], c.get("text", ""), read_wav(os.path.join(args.clips, c["file"])))
             for c in manifest]

    from faster_whisper import WhisperModel

    t0 = time.perf_counter()
    model = WhisperModel(args.model, device="cpu", compute_type="int8",
                         cpu_threads=args.threads, num_workers=1)
    load_ms = (time.perf_counter() - t0) * 1000

    transcribe(model, clips[0][2], args.beam_size)  # warm-up, not timed

    rows = []
    for name, reference, audio in clips:
        best, text = None, ""
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            text = transcribe(model, audio, args.beam_size)
            elapsed = (time.perf_counter() - t0) * 1000
            best = elapsed if best is None else min(best, elapsed)
        rows.append({"file": name, "text": text, "reference": reference,
                     "audioMs": len(audio) / 16.0, "decodeMs": best})

    audio_ms = sum(r["audioMs"] for r in rows)
    decode_ms = sum(r["decodeMs"] for r in rows)
    engine = f"faster-whisper {version('faster-whisper')} int8"
    result = {"engine": engine, "threads": args.threads, "beamSize": args.beam_size,
              "loadMs": load_ms, "clips": rows, "audioMs": audio_ms, "decodeMs": decode_ms}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print(f"{engine} (ctranslate2 {version('ctranslate2')}), {args.threads} threads, beam {args.beam_size}: "
          f"{len(rows)} clips, {audio_ms / 1000:.1f} s audio in {decode_ms:.0f} ms "
          f"(RTF {decode_ms / audio_ms:.3f}), load {load_ms:.0f} ms", file=sys.stderr)


if __name__ == "__main__":
    main()
