#!/usr/bin/env python3
"""`make bench`: the HTTP API under load, against the same load sent to the
scripted LLM server directly and through LiteLLM's proxy, in one run.

  bench_server.py --baton BATON --scripted SCRIPTED --load LOAD [--litellm LITELLM]

The scripted server answers every streamed request with 20 words, one SSE
event every 10 ms. baton-bench-load sends 200 streaming requests at once
and records, per request, when the first body byte and each content delta
arrived. Reported against the direct run: added time to the first byte
and to the first token (p50), and added latency per chunk: a chunk's
arrival after its request's first token, minus the direct run's median of
the same; p50 and p99 over all chunks.

Then memory per idle session: 500 `x-baton-session` conversations of one
exchange each, kept in memory (RSS of `baton serve`), in files (bytes on
disk) and on Redis (`used_memory`).
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

WORDS = " ".join(f"w{i}" for i in range(1, 21))
PACE_MS = 10
CONCURRENCY = 200
# Both servers check a bearer key, as they would in use.
LITELLM_KEY = "sk-bench-" + "0" * 32


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url, timeout=60):
    start = time.time()
    while time.time() - start < timeout:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status < 500:
                    return
        except Exception:
            time.sleep(0.2)
    raise SystemExit(f"nothing answered at {url} within {timeout} s")


def scripted(binary, replies, tmp):
    """The scripted server with `replies` paced answers queued."""
    steps = [{"kind": "reply", "text": WORDS, "textPieces": 20, "eventDelayMs": PACE_MS,
              "promptTokens": 11, "completionTokens": 20}] * replies
    path = os.path.join(tmp, "script.json")
    with open(path, "w") as f:
        json.dump(steps, f)
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--script", path],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    proc.stdout.readline()
    return proc, f"http://127.0.0.1:{port}"


def baton_home(tmp, llm_url):
    """A config, data and workspace folder for `baton serve` on the scripted server."""
    home = os.path.join(tmp, "baton")
    os.makedirs(os.path.join(home, "config"), exist_ok=True)
    os.makedirs(os.path.join(home, "ws"), exist_ok=True)
    providers = {"default": "scripted", "providers": [
        {"name": "scripted", "dialect": "openai", "endpoint": f"{llm_url}/v1", "model": "m"}]}
    with open(os.path.join(home, "providers.json"), "w") as f:
        json.dump(providers, f)
    with open(os.path.join(home, "config", "settings.json"), "w") as f:
        json.dump({"skipIndexingOnStartup": True, "workspace": os.path.join(home, "ws")}, f)
    env = dict(os.environ, BATON_CONFIG_DIR=os.path.join(home, "config"),
               BATON_DATA_DIR=os.path.join(home, "data"), BATON_CACHE_DIR=os.path.join(home, "cache"),
               BATON_PROVIDERS=os.path.join(home, "providers.json"), RUST_LOG="warn")
    return home, env


def serve(baton, env, sessions="memory"):
    port = free_port()
    # No limits in the way of the load; without a key (the session part)
    # this computer only, as `--no-auth` says.
    proc = subprocess.Popen([baton, "serve", "--port", str(port), "--max-concurrent", "0",
                             "--per-minute", "0", "--no-auth", "--sessions", sessions],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_http(f"http://127.0.0.1:{port}/health")
    return proc, f"http://127.0.0.1:{port}"


def litellm(binary, llm_url, tmp):
    cfg = os.path.join(tmp, "litellm.yaml")
    with open(cfg, "w") as f:
        f.write("model_list:\n  - model_name: scripted\n    litellm_params:\n"
                f"      model: openai/m\n      api_base: {llm_url}/v1\n      api_key: not-needed\n"
                "litellm_settings:\n  telemetry: false\n")
    port = free_port()
    env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", LITELLM_LOG="ERROR",
               LITELLM_MASTER_KEY=LITELLM_KEY)
    proc = subprocess.Popen([binary, "--config", cfg, "--port", str(port), "--num_workers", "1"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_http(f"http://127.0.0.1:{port}/health/liveliness", timeout=180)
    return proc, f"http://127.0.0.1:{port}"


def load(binary, url, model, key=None):
    cmd = [binary, "--url", f"{url}/v1/chat/completions", "--model", model, "--concurrency", str(CONCURRENCY)]
    out = subprocess.run(cmd + (["--key", key] if key else []), check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def added(run, direct, shift):
    """Each chunk's arrival minus the direct run's median arrival of the
    same chunk; `shift`: counted from the request's first token instead of
    its start (the relay alone, without the turn's set-up)."""
    def offsets(r):
        return [[t - (d[0] if shift else 0) for t in d] for d in r["deltaMs"] if d]
    base = offsets(direct)
    n = len(base[0])
    median = [statistics.median(r[k] for r in base if len(r) > k) for k in range(n)]
    return [r[k] - median[k] for r in offsets(run) for k in range(1 if shift else 0, min(n, len(r)))]


def report(name, run, direct):
    """Times of `run` and what it adds to the `direct` run's."""
    fb = run["firstByteMs"]
    ft = [d[0] for d in run["deltaMs"] if d]
    whole, relayed = added(run, direct, False), added(run, direct, True)
    n = max(len(d) for d in direct["deltaMs"])
    complete = sum(1 for d in run["deltaMs"] if len(d) == n)
    print(f"  {name:<17} errors {run['errors']}/{run['requests']}, complete {complete}; "
          f"first byte p50 {pct(fb, 50):.1f} p99 {pct(fb, 99):.1f} ms; "
          f"first token p50 {pct(ft, 50):.1f} p99 {pct(ft, 99):.1f} ms; added per chunk "
          f"p50 {pct(whole, 50):.2f} p99 {pct(whole, 99):.2f} ms, after the first token "
          f"p50 {pct(relayed, 50):.2f} p99 {pct(relayed, 99):.2f} ms"
          + (f" (first error: {run['firstError']})" if run["errors"] else ""))
    return {"chunk": pct(whole, 50), "chunk99": pct(whole, 99), "relay": pct(relayed, 50),
            "first_byte": pct(fb, 50) - pct(direct["firstByteMs"], 50)}


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def fill_sessions(url, n):
    for i in range(n):
        body = json.dumps({"model": "assistant", "messages": [
            {"role": "user", "content": f"Remember the number {i}, please."}]}).encode()
        req = urllib.request.Request(f"{url}/v1/chat/completions", data=body, method="POST",
                                     headers={"content-type": "application/json",
                                              "x-baton-session": f"bench-{i}"})
        urllib.request.urlopen(req, timeout=30).read()


def redis_used(port):
    out = subprocess.run(["redis-cli", "-p", str(port), "info", "memory"], capture_output=True, text=True).stdout
    return int(re.search(r"used_memory:(\d+)", out).group(1))


def session_memory(args, tmp):
    n = 500
    print(f"\nmemory per idle session ({n} sessions of one exchange each):")
    proc, llm = scripted(args.scripted, 3 * n + 30, tmp)
    try:
        _, env = baton_home(os.path.join(tmp, "mem"), llm)
        # In memory: RSS after 30 warm-up sessions, then after n more.
        srv, url = serve(args.baton, env, "memory")
        fill_sessions(url, 30)
        before = rss_kib(srv.pid)
        fill_sessions(url, n)
        after = rss_kib(srv.pid)
        srv.terminate(); srv.wait()
        print(f"  memory: {(after - before) * 1024 / n / 1024:.1f} KiB of RSS each")
        # Files: bytes on disk.
        srv, url = serve(args.baton, env, "file")
        fill_sessions(url, n)
        srv.terminate(); srv.wait()
        sessions_dir = os.path.join(env["BATON_DATA_DIR"], "api-sessions", "local")
        files = [os.path.join(sessions_dir, f) for f in os.listdir(sessions_dir) if f.startswith("bench-")]
        size = sum(os.path.getsize(f) for f in files)
        print(f"  file:   {size / len(files) / 1024:.1f} KiB on disk each ({len(files)} files)")
        # Redis: used_memory.
        port = free_port()
        redis = subprocess.Popen(["redis-server", "--port", str(port), "--save", "", "--appendonly", "no"],
                                 stdout=subprocess.DEVNULL)
        time.sleep(0.5)
        before = redis_used(port)
        srv, url = serve(args.baton, env, f"redis://127.0.0.1:{port}")
        fill_sessions(url, n)
        after = redis_used(port)
        srv.terminate(); srv.wait()
        redis.terminate(); redis.wait()
        print(f"  redis:  {(after - before) / n / 1024:.1f} KiB of Redis used_memory each")
    finally:
        proc.terminate()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", required=True)
    ap.add_argument("--scripted", required=True)
    ap.add_argument("--load", required=True)
    ap.add_argument("--litellm")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="baton-bench-server-")
    procs = []
    try:
        runs = 2 + (2 if args.litellm else 0) + 2
        llm_proc, llm = scripted(args.scripted, CONCURRENCY * (runs + 1), tmp)
        procs.append(llm_proc)
        _, env = baton_home(tmp, llm)
        key = subprocess.run([args.baton, "serve", "keys", "add", "bench"], env=env, check=True,
                             capture_output=True, text=True).stdout.strip()
        srv, baton_url = serve(args.baton, env)
        procs.append(srv)
        targets = [("scripted, direct", llm, "m", None), ("baton serve", baton_url, "assistant", key)]
        if args.litellm:
            lp, lurl = litellm(args.litellm, llm, tmp)
            procs.append(lp)
            targets.append(("LiteLLM proxy", lurl, "scripted", LITELLM_KEY))
        print(f"{CONCURRENCY} concurrent streaming requests, 20 chunks each, {PACE_MS} ms apart "
              f"(a warm-up round first, then the measured one):")
        for _, url, model, k in targets:
            load(args.load, url, model, k)  # warm-up: connections, first-turn set-up
        direct = load(args.load, llm, "m")
        results = {}
        for name, url, model, k in targets:
            run = direct if url == llm else load(args.load, url, model, k)
            results[name] = report(name, run, direct)
        b = results["baton serve"]
        print(f"  Baton adds {b['chunk']:.2f} ms per chunk at p50 (p99 {b['chunk99']:.2f}; goal at most 1 ms): "
              f"{b['relay']:.2f} ms relaying a chunk, the rest the turn's set-up before the first token; "
              f"{b['first_byte']:.1f} ms to the first byte")
        if "LiteLLM proxy" in results:
            l = results["LiteLLM proxy"]
            ratio = l["chunk"] / b["chunk"] if b["chunk"] > 0 else float("inf")
            print(f"  LiteLLM adds {l['chunk']:.2f} ms per chunk at p50: {ratio:.1f}x Baton's (goal at least 5x); "
                  f"{l['first_byte']:.1f} ms to the first byte")
    finally:
        for p in procs:
            p.send_signal(signal.SIGINT)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
    session_memory(args, tmp)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
