#!/usr/bin/env python3
"""Write a tiny LLaMA-architecture GGUF v3 model with seeded random F32 weights (standard library only).

usage: gguf-tiny.py OUT.gguf [SEED]

A 384-token SPM vocabulary (unknown, BOS, EOS, 256 byte tokens, letters and digits), embedding 64,
2 layers, 4 heads, 2 KV heads: about 500 KB, written in a fraction of a second. It generates
nonsense, deterministically, which is all a test of a serving client needs from a real engine.
"""
import random
import struct
import sys
from array import array

E, L, H, KV, FF, CTX = 64, 2, 4, 2, 128, 512
HD = E // H
ALIGN = 32


def s(x):
    b = x.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, typ, val):
    out = s(key) + struct.pack("<I", typ)
    if typ == 8:  # string
        return out + s(val)
    if typ == 4:  # uint32
        return out + struct.pack("<I", val)
    if typ == 5:  # int32
        return out + struct.pack("<i", val)
    if typ == 6:  # float32
        return out + struct.pack("<f", val)
    if typ == 9:  # array: (elem type, values)
        et, vals = val
        out += struct.pack("<IQ", et, len(vals))
        for v in vals:
            out += s(v) if et == 8 else struct.pack("<f" if et == 6 else "<i", v)
        return out
    raise ValueError(typ)


def vocab():
    toks, types, scores = ["<unk>", "<s>", "</s>"], [2, 3, 3], [0.0, 0.0, 0.0]
    for b in range(256):
        toks.append("<0x%02X>" % b); types.append(6); scores.append(0.0)
    words = [chr(c) for c in range(ord("a"), ord("z") + 1)] + [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    extra = ["\u2581" + w for w in words] + words + [str(d) for d in range(10)] + ["\u2581" + str(d) for d in range(10)]
    for w in extra:
        if len(toks) == 384:
            break
        toks.append(w); types.append(1); scores.append(-float(len(toks)))
    while len(toks) < 384:
        toks.append("\u2581x%d" % len(toks)); types.append(1); scores.append(-float(len(toks)))
    return toks, types, scores


def main():
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    toks, types, scores = vocab()
    V = len(toks)
    tensors = [("token_embd.weight", [E, V]), ("output_norm.weight", [E]), ("output.weight", [E, V])]
    for i in range(L):
        p = "blk.%d." % i
        tensors += [(p + "attn_norm.weight", [E]), (p + "attn_q.weight", [E, E]), (p + "attn_k.weight", [E, KV * HD]),
                    (p + "attn_v.weight", [E, KV * HD]), (p + "attn_output.weight", [E, E]), (p + "ffn_norm.weight", [E]),
                    (p + "ffn_gate.weight", [E, FF]), (p + "ffn_down.weight", [FF, E]), (p + "ffn_up.weight", [E, FF])]
    kvs = [kv("general.architecture", 8, "llama"), kv("general.name", 8, "labrun-tiny"),
           kv("general.alignment", 4, ALIGN),
           kv("llama.context_length", 4, CTX), kv("llama.embedding_length", 4, E), kv("llama.block_count", 4, L),
           kv("llama.feed_forward_length", 4, FF), kv("llama.attention.head_count", 4, H),
           kv("llama.attention.head_count_kv", 4, KV), kv("llama.rope.dimension_count", 4, HD),
           kv("llama.attention.layer_norm_rms_epsilon", 6, 1e-5), kv("llama.vocab_size", 4, V),
           kv("tokenizer.ggml.model", 8, "llama"), kv("tokenizer.ggml.tokens", 9, (8, toks)),
           kv("tokenizer.ggml.scores", 9, (6, scores)), kv("tokenizer.ggml.token_type", 9, (5, types)),
           kv("tokenizer.ggml.unknown_token_id", 4, 0), kv("tokenizer.ggml.bos_token_id", 4, 1),
           kv("tokenizer.ggml.eos_token_id", 4, 2)]
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs)
    infos, datas, off = b"", [], 0
    for name, dims in tensors:
        n = 1
        for d in dims:
            n *= d
        norm = name.endswith("norm.weight")
        data = array("f", [1.0] * n if norm else [rng.gauss(0, 0.3) for _ in range(n)]).tobytes()
        infos += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        infos += struct.pack("<IQ", 0, off)
        pad = (-len(data)) % ALIGN
        datas.append(data + b"\0" * pad)
        off += len(data) + pad
    meta = head + infos
    meta += b"\0" * ((-len(meta)) % ALIGN)
    with open(sys.argv[1], "wb") as f:
        f.write(meta)
        for d in datas:
            f.write(d)


main()
