"""Where the encoder engine's GPU time goes (issue 33): share of the *measured* matmul peak.

The H200 measurement (docs/benchmarks.md, "Inference") found the engine at 1,089 texts/s for a
bert-base-size classifier at 512 tokens, 12% of the datasheet bf16 peak. This script separates
what that figure mixes, on one GPU, in one process:

1. the GPU's own bf16 matmul peak (large square matmuls), the denominator;
2. the model alone on pre-tokenised, pre-padded batches (no tokenizer, no hashing): batch 64
   and token-budgeted batches, with and without ``torch.compile``;
3. the whole engine (tokenise, hash, deduplicate, cache, forward): text batches as today and
   token-budgeted batches (``Engine(batch_tokens=...)``); predictions compared to today's.

Random bert-base weights (BertConfig defaults, 10 labels), bf16, SDPA attention, texts of 10-800
words so most fill the 512-token window. Prints one line per variant: texts/s, model TFLOP/s
(2 x parameters without embeddings per token, plus attention, as ``hinter.estimate`` counts) and
the share of the measured peak and of the datasheet peak (989 TFLOP/s for H100/H200).

    python tests/benchmarks/gpu_encoder.py                      # on a CUDA GPU (minutes)
    python tests/benchmarks/gpu_encoder.py --device cpu --small # dry run of the script here

Not run yet on a GPU (the session that wrote it had none): its figures belong in
docs/benchmarks.md when a GPU session runs it.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from hinter import estimate, io  # noqa: E402
from hinter.model_dir import SIDECAR  # noqa: E402
from hinter.models.encoder import Engine, token_batches  # noqa: E402
from hinter.models.loading import load_classifier  # noqa: E402
from hinter.models.tokenizers import train_demo_tokenizer  # noqa: E402

WORDS = (  # noqa: SIM905
    "the applicant complained that the court held a black woman and a tall man in detention "
    "for years while the state police denied her family any access to a lawyer or a judge"
).split()
DATASHEET_TFLOPS = 989.0


def texts(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [
        f"Case {i}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 800)))
        for i in range(n)
    ]


def sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def matmul_peak(device: str, dtype, size: int, repeats: int = 20) -> float:
    """TFLOP/s of ``size``-square matmuls: what this GPU really reaches."""
    a = torch.randn(size, size, device=device, dtype=dtype)
    b = torch.randn(size, size, device=device, dtype=dtype)
    for _ in range(3):
        a @ b
    sync(device)
    start = time.perf_counter()
    for _ in range(repeats):
        a @ b
    sync(device)
    return 2 * size**3 * repeats / (time.perf_counter() - start) / 1e12


def build(path: Path, small: bool, max_length: int) -> Path:
    from transformers import AutoModelForSequenceClassification, BertConfig

    tok = train_demo_tokenizer("demo-wordpiece", texts(200, seed=2), max_length, vocab_size=30522)
    size = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
            "intermediate_size": 128} if small else {}  # fmt: skip
    config = BertConfig(vocab_size=len(tok), num_labels=10, pad_token_id=tok.pad_token_id, **size)
    config.problem_type = "multi_label_classification"
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_config(config, attn_implementation="sdpa")
    model.save_pretrained(path)
    tok.model_max_length = max_length
    tok.save_pretrained(path)
    io.write_json(path / SIDECAR, {"task_type": "multi_label", "max_length": max_length})
    return path


def model_flops(tokens: float, shape) -> float:
    return estimate.encoder_flops(tokens, shape)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--small", action="store_true", help="a 2-layer model (a dry run)")
    parser.add_argument("--texts", type=int, default=8192)
    parser.add_argument("--batch-tokens", type=int, default=64 * 512)
    args = parser.parse_args()
    device = args.device
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    n = args.texts if not args.small else min(args.texts, 256)
    peak = matmul_peak(device, dtype, 8192 if device == "cuda" else 1024)
    print(f"matmul peak measured: {peak:.1f} TFLOP/s ({dtype}, {device})")
    with tempfile.TemporaryDirectory() as tmp:
        clf = load_classifier(build(Path(tmp) / "m", args.small, 512), dtype=str(dtype)[6:],
                              device=device)  # fmt: skip
        cfg = clf.model.config
        shape = {"params": 12 * cfg.num_hidden_layers * cfg.hidden_size**2,
                 "layers": cfg.num_hidden_layers, "hidden": cfg.hidden_size}  # fmt: skip
        data = texts(n)
        probe = Engine(clf)
        encoded = probe.encode(data)
        seqs = {e.ids_hash: e.ids for e in encoded}
        order = sorted(seqs, key=lambda h: (-len(seqs[h]), h))
        tokens = sum(len(seqs[h]) for h in order)
        flops = sum(model_flops(len(seqs[h]), shape) for h in order)

        def report(name: str, seconds: float) -> None:
            tflops = flops / seconds / 1e12
            print(
                f"{name:<44} {len(order) / seconds:9.0f} texts/s {tokens / seconds:10.0f} "
                f"tokens/s {tflops:7.1f} TFLOP/s = {tflops / peak:5.1%} of measured peak, "
                f"{tflops / DATASHEET_TFLOPS:5.1%} of datasheet"
            )

        def model_only(model, batches) -> float:
            pad = probe.pad_id
            tensors = []
            for keys in batches:
                width = len(seqs[keys[0]])
                ids = torch.full((len(keys), width), pad, dtype=torch.long)
                mask = torch.zeros_like(ids)
                for r, k in enumerate(keys):
                    ids[r, : len(seqs[k])] = torch.from_numpy(seqs[k].astype(np.int64))
                    mask[r, : len(seqs[k])] = 1
                tensors.append((ids.to(device), mask.to(device)))
            with torch.inference_mode():
                model(input_ids=tensors[0][0], attention_mask=tensors[0][1])
                sync(device)
                start = time.perf_counter()
                for ids, mask in tensors:
                    model(input_ids=ids, attention_mask=mask)
                sync(device)
            return time.perf_counter() - start

        lengths = [len(seqs[h]) for h in order]
        from hinter.models.stage import padded_batches

        by_texts = padded_batches(order, lengths, 64)
        by_tokens = token_batches(order, lengths, args.batch_tokens)
        report("model only, batches of 64 texts", model_only(clf.model, by_texts))
        report(
            f"model only, batches of {args.batch_tokens} tokens", model_only(clf.model, by_tokens)
        )
        if device == "cuda":
            compiled = torch.compile(clf.model, dynamic=True)
            model_only(compiled, by_tokens)  # compile
            report("model only, token batches, torch.compile", model_only(compiled, by_tokens))

        def engine(**kwargs):
            Engine(clf, **kwargs).predict(data[:128])
            sync(device)
            start = time.perf_counter()
            logits = Engine(clf, **kwargs).predict(data)
            sync(device)
            return logits, time.perf_counter() - start

        today, seconds = engine(batch_size=64)
        report("engine, batches of 64 texts (today)", seconds)
        ours, seconds = engine(batch_tokens=args.batch_tokens)
        report(f"engine, batches of {args.batch_tokens} tokens", seconds)
        print(f"max |logit difference| token vs text batches: {np.abs(ours - today).max():.2e}")


if __name__ == "__main__":
    main()
