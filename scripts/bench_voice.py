#!/usr/bin/env python3
"""Time to first audio of a voice turn, and its parts.

Runs `baton voice --mic-file Q.wav --speaker-file OUT.wav --json` against
the scripted LLM server, which streams the answer at a fixed 20 ms per
token (one word per event). Whisper tiny.en (the configured model) hears
the question; eSpeak NG or the Piper voice speaks the answer. The first audio is the moment
the speaker's device (a real-time pacing thread) takes the first sample.

Each setting is run --runs times; medians are printed, for the default
end-of-speech silence (700 ms) and a short one (300 ms), so the VAD tail's
share is visible.

  bench_voice.py --baton BIN --scripted BIN [--runs 5]
"""
import argparse, json, os, socket, statistics, subprocess, sys, tempfile, time, urllib.request

QUESTION = "What is on my calendar for tomorrow?"
ANSWER = ("You have two meetings tomorrow. The first one is at nine with Alice. "
          "The second one is at three with the design team.")
PARTS = ["vadTailMs", "sttMs", "firstSentenceMs", "ttsMs", "firstAudioMs"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    urllib.request.urlopen(req, timeout=5).read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", required=True)
    ap.add_argument("--scripted", required=True)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="baton-voice-bench-")
    port = free_port()
    server = subprocess.Popen([a.scripted, "--port", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(url + "/_control/requests", timeout=1).read()
                break
            except OSError:
                time.sleep(0.05)
        providers = os.path.join(tmp, "providers.json")
        with open(providers, "w") as f:
            json.dump({"default": "scripted", "providers": [
                {"name": "scripted", "dialect": "openai", "endpoint": url + "/v1", "model": "m"}]}, f)
        mic = os.path.join(tmp, "q.wav")
        subprocess.run(["espeak-ng", "-w", mic, QUESTION], check=True)
        words = len(ANSWER.split())
        print(f"Time to first audio (question {QUESTION!r}; answer streamed at 20 ms/token; "
              f"tiny.en; medians of {a.runs}); speculative: transcription and the answer start "
              f"after 300 ms of silence, held until the pause ends:")
        print(f"  {'setting':<38} " + " ".join(f"{p[:-2]:>15}" for p in PARTS))
        configs = [
            ("700 ms pause, no speculation, eSpeak NG", {"endSilenceMs": 700, "speculateAfterMs": 0, "ttsEngine": "espeak"}),
            ("700 ms pause, speculative, eSpeak NG", {"endSilenceMs": 700, "ttsEngine": "espeak"}),
            ("700 ms pause, speculative, Piper", {"endSilenceMs": 700, "ttsEngine": "piper"}),
            ("300 ms pause, no speculation, eSpeak NG", {"endSilenceMs": 300, "speculateAfterMs": 0, "ttsEngine": "espeak"}),
        ]
        results = {}
        for label, voice in configs:
            conf = os.path.join(tmp, f"config-{len(results)}")
            os.makedirs(conf, exist_ok=True)
            with open(os.path.join(conf, "setup.json"), "w") as f:
                json.dump({"voice": dict(voice, partialEveryMs=0)}, f)
            env = dict(os.environ, BATON_CONFIG_DIR=conf, BATON_DATA_DIR=os.path.join(tmp, "data"),
                       HOME=os.path.join(tmp, "home"))
            env.setdefault("BATON_MODELS_DIR", os.path.expanduser("~/.local/share/baton/models"))
            rows = []
            for _ in range(a.runs):
                post(url + "/_control/script", [{"kind": "reply", "text": ANSWER,
                                                 "textPieces": words, "eventDelayMs": 20}])
                out = subprocess.run([a.baton, "--providers", providers, "voice", "--json",
                                      "--mic-file", mic, "--speaker-file", os.path.join(tmp, "a.wav")],
                                     env=env, capture_output=True, text=True, timeout=120)
                if out.returncode != 0:
                    sys.exit(f"baton voice failed: {out.stderr}")
                summary = [json.loads(l) for l in out.stdout.splitlines() if '"summary"' in l][0]
                rows.append(summary["turns"][0]["timing"])
            med = {p: statistics.median(r[p] for r in rows) for p in PARTS}
            results[label] = med
            print(f"  {label:<38} " + " ".join(f"{med[p]:>12.0f} ms" for p in PARTS))
        base = results[configs[0][0]]["firstAudioMs"]
        spec = results[configs[1][0]]["firstAudioMs"]
        print(f"  speculative / waiting for the whole pause (eSpeak NG, 700 ms): {spec / base:.2f}x; "
              f"with a 700 ms pause the first audio cannot come before the pause ends")
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
