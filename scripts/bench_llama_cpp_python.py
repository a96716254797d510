#!/usr/bin/env python3
"""The baseline for `baton-local-bench`: the same model, prompt, thread
count and greedy sampling through llama-cpp-python. Prints one JSON line."""
import json, os, resource, sys, time

from llama_cpp import Llama

PARAGRAPH = ("The old bakery on the corner opened before dawn every day. The baker lit the ovens, "
             "mixed flour, water, salt and yeast, and shaped the loaves by hand while the town slept. ")


def prompt(run):
    text = f"Run {run}. {PARAGRAPH * 12} Now write a long story about this bakery."
    return f"<|im_start|>user\n{text}<|im_end|>\n<|im_start|>assistant\n"


def one(llm, run, max_tokens):
    t0 = time.perf_counter()
    first, n = None, 0
    for _ in llm.create_completion(prompt(run), max_tokens=max_tokens, temperature=0.0, top_k=1, stream=True):
        n += 1
        if first is None:
            first = time.perf_counter() - t0
    total = time.perf_counter() - t0
    return first or total, total, n


def main():
    models = os.environ["BATON_MODELS_DIR"]
    threads = int(os.environ.get("BENCH_THREADS", "2"))
    t0 = time.perf_counter()
    llm = Llama(model_path=f"{models}/SmolLM2-135M-Instruct.Q4_1.gguf", n_ctx=2048, n_batch=512,
                n_threads=threads, n_threads_batch=threads, verbose=False)
    first, _, _ = one(llm, 0, 1)
    cold = time.perf_counter() - t0
    ttft, pp, tg = [], [], []
    n_prompt = len(llm.tokenize(prompt(1).encode(), add_bos=True, special=True))
    for run in (1, 2, 3):
        first, total, n = one(llm, run, 128)
        ttft.append(first)
        pp.append(n_prompt / first)
        tg.append(max(n - 1, 0) / max(total - first, 1e-9))
    med = lambda v: sorted(v)[len(v) // 2]
    print(json.dumps({"impl": "llama-cpp-python", "threads": threads, "promptTokens": n_prompt,
                      "coldTtftMs": cold * 1000, "warmTtftMs": med(ttft) * 1000,
                      "promptTokensPerSec": med(pp), "generationTokensPerSec": med(tg),
                      "peakRssMb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    sys.exit(main())
