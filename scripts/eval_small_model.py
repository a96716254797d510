#!/usr/bin/env python3
"""Accuracy of the embedded model (SmolLM2-135M-Instruct) on 30 simple
questions (tests/fixtures/eval/simple_questions.json), as Baton runs it
(`baton ask --provider local --no-tools`: Baton's prompt) against the same
model file run by llama-cpp-python with the model's own chat template and
no system prompt; greedy, 96 new tokens, in one run.

  python3 scripts/eval_small_model.py --baton PATH [--set questions|tuning] [--show]
"""
import argparse, json, os, re, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_TOKENS = 96


def right(answer, patterns):
    return all(re.search(p, answer, re.IGNORECASE) for p in patterns)


def baton_answer(baton, question, env):
    out = subprocess.run([baton, "ask", "--provider", "local", "--no-tools", "--json", question],
                         capture_output=True, text=True, env=env, timeout=120)
    if out.returncode != 0:
        raise SystemExit(f"baton ask failed: {out.stderr}")
    return json.loads(out.stdout)["text"]


def reference_answers(questions, models):
    from llama_cpp import Llama
    llm = Llama(model_path=f"{models}/SmolLM2-135M-Instruct.Q4_1.gguf", n_ctx=2048, n_threads=2,
                verbose=False, seed=0)
    answers = []
    for item in questions:
        r = llm.create_chat_completion(messages=[{"role": "user", "content": item["q"]}],
                                       temperature=0.0, top_k=1, max_tokens=MAX_TOKENS)
        answers.append(r["choices"][0]["message"]["content"])
    return answers


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", required=True)
    ap.add_argument("--set", default="questions", choices=["questions", "tuning"])
    ap.add_argument("--show", action="store_true", help="print every answer")
    a = ap.parse_args()
    questions = json.loads((ROOT / "tests/fixtures/eval/simple_questions.json").read_text())[a.set]
    models = os.environ["BATON_MODELS_DIR"]
    env = dict(os.environ, BATON_CONFIG_DIR=os.environ.get("EVAL_CONFIG_DIR", "/tmp/baton-eval-config"),
               BATON_DATA_DIR=os.environ.get("EVAL_DATA_DIR", "/tmp/baton-eval-data"))
    env.pop("BATON_PROVIDERS", None)
    # The shipped `local` entry, capped at the reference's answer length.
    config = Path(env["BATON_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    local = {"name": "local", "dialect": "local", "modelPath": "SmolLM2-135M-Instruct.Q4_1.gguf",
             "model": "SmolLM2-135M-Instruct", "contextWindow": 8192, "maxOutputTokens": MAX_TOKENS,
             "temperature": 0.0, "cacheType": "PrefixCache", "interactionMode": "API", "nativeTools": True, "tools": False}
    (config / "providers.json").write_text(json.dumps({"providers": [local]}))
    started = time.time()
    ours = [baton_answer(a.baton, item["q"], env) for item in questions]
    baton_s = time.time() - started
    started = time.time()
    theirs = reference_answers(questions, models)
    ref_s = time.time() - started
    n = len(questions)
    ok_ours = sum(right(x, q["all"]) for x, q in zip(ours, questions))
    ok_theirs = sum(right(x, q["all"]) for x, q in zip(theirs, questions))
    if a.show:
        for q, x, y in zip(questions, ours, theirs):
            print(f"- {q['q']}\n    Baton [{'ok' if right(x, q['all']) else '--'}] {x[:140]!r}\n"
                  f"    llama-cpp-python [{'ok' if right(y, q['all']) else '--'}] {y[:140]!r}")
    print(f"embedded model, {n} simple questions ({a.set}): Baton {ok_ours}/{n} ({100 * ok_ours / n:.0f}%, {baton_s:.1f} s), "
          f"llama-cpp-python with the model's own template {ok_theirs}/{n} ({100 * ok_theirs / n:.0f}%, {ref_s:.1f} s)")


if __name__ == "__main__":
    sys.exit(main())
