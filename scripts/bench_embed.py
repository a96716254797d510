#!/usr/bin/env python3
"""The reference for Baton's embedding throughput: the same model file and
tokenizer (scripts/fetch-embed.sh) run by the Python onnxruntime with the
`tokenizers` package, mean-pooled and normalized the same way, the same
passages in batches of 32 after one warm-up batch, 2 threads.

    bench_embed.py MODELS_DIR TEXTS_FILE   -> one JSON line
"""
import json
import sys
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def main(models, texts_file):
    texts = [l for l in open(texts_file, encoding="utf-8").read().splitlines() if l]
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    sess = ort.InferenceSession(f"{models}/embed/all-MiniLM-L6-v2-int8.onnx", opts,
                                providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(f"{models}/embed/tokenizer.json")
    tok.enable_truncation(256)
    tok.enable_padding()

    def embed(batch):
        enc = tok.encode_batch(batch)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        types = np.array([e.type_ids for e in enc], dtype=np.int64)
        out = sess.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
        v = (out * mask[..., None]).sum(1)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    embed(texts[:32])
    start = time.perf_counter()
    for i in range(0, len(texts), 32):
        embed(texts[i:i + 32])
    seconds = time.perf_counter() - start
    print(json.dumps({"runtime": "python", "texts": len(texts), "seconds": round(seconds, 3),
                      "per_second": round(len(texts) / seconds, 1)}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
