"""The demo's spaCy pipeline: sentencizer + tok2vec + tagger + parser, trained on the treebank.

Built and trained with spaCy's Python API (``spacy.blank`` + ``add_pipe`` + ``nlp.update``) rather
than ``spacy train``: the settings come straight from the config, the loop is a few lines with a
fixed seed and a fixed number of epochs, and it needs no intermediate config file. The saved
pipeline has a complete ``config.cfg``, so ``spacy.load(path)`` restores it anywhere.

Sentence boundaries come from the rule-based ``sentencizer``, which runs before the parser and
sets every token's ``is_sent_start``; spaCy's transition parser respects preset boundaries, so
``doc.sents`` is the sentencizer's split (checked on every evaluation: ``sents_match``). The
sentencizer also annotates the examples during training, so the parser learns under the same
constraint. The pipeline's meta names it ``hinter_demo_parser`` with a version whose local part
is a fingerprint of the treebank, the settings and the seed (the invariant keys its parse cache
by name + version, so a retrained parser never reuses another's parses).
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hinter import io
from hinter.errors import ConfigError, DataError

log = logging.getLogger(__name__)

PIPELINE_NAME = "hinter_demo_parser"


@dataclass(frozen=True)
class TrainSettings:
    """``parser.train`` of the config."""

    epochs: int = 6
    width: int = 64
    dropout: float = 0.1
    depth: int = 2
    embed_size: int = 2000
    hidden_width: int = 64
    batch_size: int = 32

    @classmethod
    def from_config(cls, train: Mapping[str, Any]) -> TrainSettings:
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(train) - known)
        if unknown:
            raise ConfigError(f"parser.train: unknown key(s) {', '.join(unknown)}")
        return cls(**{k: train[k] for k in known if k in train})


def build_pipeline(settings: TrainSettings):
    """A blank English pipeline: sentencizer, tok2vec, tagger, parser (listening to tok2vec)."""
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe(
        "tok2vec",
        config={
            "model": {
                "@architectures": "spacy.HashEmbedCNN.v2",
                "width": settings.width,
                "depth": settings.depth,
                "embed_size": settings.embed_size,
                "window_size": 1,
                "maxout_pieces": 3,
                "subword_features": True,
                "pretrained_vectors": None,
            }
        },
    )
    listener = {
        "@architectures": "spacy.Tok2VecListener.v1",
        "width": settings.width,
        "upstream": "tok2vec",
    }
    nlp.add_pipe(
        "tagger",
        config={
            "model": {
                "@architectures": "spacy.Tagger.v2",
                "nO": None,
                "normalize": False,
                "tok2vec": listener,
            }
        },
    )
    nlp.add_pipe(
        "parser",
        config={
            "model": {
                "@architectures": "spacy.TransitionBasedParser.v2",
                "state_type": "parser",
                "extra_state_tokens": False,
                "hidden_width": settings.hidden_width,
                "maxout_pieces": 2,
                "use_upper": True,
                "nO": None,
                "tok2vec": listener,
            }
        },
    )
    return nlp


def read_docbin(path: str | Path, vocab) -> list:
    from spacy.tokens import DocBin

    path = Path(path)
    try:
        return list(DocBin().from_disk(path).get_docs(vocab))
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    except Exception as exc:  # a corrupt DocBin is the file's fault
        raise DataError(f"{path}: not a readable spaCy DocBin ({type(exc).__name__})") from None


@dataclass(frozen=True)
class Gold:
    """Gold analysis of one text (tokens as spaCy's tokenizer gives them)."""

    text: str
    words: tuple[str, ...]
    tags: tuple[str, ...]
    heads: tuple[int, ...]
    deps: tuple[str, ...]

    @classmethod
    def from_doc(cls, doc) -> Gold:
        return cls(
            doc.text,
            tuple(t.text for t in doc),
            tuple(t.tag_ for t in doc),
            tuple(t.head.i for t in doc),
            tuple(t.dep_ for t in doc),
        )

    @classmethod
    def from_sentence(cls, s) -> Gold:
        return cls(s.text, tuple(s.words), tuple(s.tags), tuple(s.heads), tuple(s.deps))


def sentencizer_starts(nlp, doc) -> list[int]:
    """Sentence starts of the rule-based sentencizer alone on the text of ``doc``."""
    alone = nlp.get_pipe("sentencizer")(nlp.make_doc(doc.text))
    return [s.start for s in alone.sents]


def evaluate(nlp, golds: Sequence[Gold], batch_size: int = 256) -> dict[str, float]:
    """Token-level accuracy over every token (punctuation included, as the invariant compares
    every token): tag accuracy, UAS, LAS; the share of texts whose tag and label sequences are
    entirely right (what the invariant needs); and the share whose ``doc.sents`` equals the
    sentencizer's split."""
    n_tok = tag_ok = head_ok = las_ok = exact = sents_ok = 0
    for gold, doc in zip(
        golds, nlp.pipe((g.text for g in golds), batch_size=batch_size), strict=True
    ):
        words = tuple(t.text for t in doc)
        if words != gold.words:
            raise DataError(f"evaluation text tokenized differently: {gold.text!r}")
        tags = tuple(t.tag_ for t in doc)
        heads = tuple(t.head.i for t in doc)
        deps = tuple(t.dep_ for t in doc)
        for i in range(len(words)):
            n_tok += 1
            tag_ok += tags[i] == gold.tags[i]
            if heads[i] == gold.heads[i]:
                head_ok += 1
                las_ok += deps[i] == gold.deps[i]
        exact += tags == gold.tags and deps == gold.deps
        sents_ok += [s.start for s in doc.sents] == sentencizer_starts(nlp, doc)
    n = max(len(golds), 1)
    return {
        "texts": len(golds),
        "tokens": n_tok,
        "tag_acc": tag_ok / max(n_tok, 1),
        "uas": head_ok / max(n_tok, 1),
        "las": las_ok / max(n_tok, 1),
        "tags_and_labels_exact": exact / n,
        "sents_match": sents_ok / n,
    }


def fingerprint(paths: Iterable[str | Path], settings: TrainSettings, seed: int) -> str:
    import spacy

    h = hashlib.sha256()
    for p in paths:
        h.update(Path(p).read_bytes())
    h.update(
        json.dumps(
            {"settings": asdict(settings), "seed": seed, "spacy": spacy.__version__}, sort_keys=True
        ).encode()
    )
    return h.hexdigest()[:12]


def train(
    train_docs: Sequence,
    settings: TrainSettings,
    seed: int,
    *,
    dev: Sequence[Gold] = (),
    log_every: int = 1,
):
    """Train a fresh pipeline on gold Docs; return (nlp, per-epoch log)."""
    from spacy.training import Example
    from spacy.util import fix_random_seed, minibatch

    fix_random_seed(seed)
    nlp = build_pipeline(settings)
    examples = [Example(nlp.make_doc(d.text), d) for d in train_docs]
    optimizer = nlp.initialize(lambda: examples)
    rng = random.Random(seed)
    history = []
    for epoch in range(1, settings.epochs + 1):
        rng.shuffle(examples)
        losses: dict[str, float] = {}
        for batch in minibatch(examples, size=settings.batch_size):
            nlp.update(
                batch,
                drop=settings.dropout,
                sgd=optimizer,
                losses=losses,
                annotates=["sentencizer"],
            )
        entry: dict[str, Any] = {
            "epoch": epoch,
            "losses": {k: round(float(v), 3) for k, v in sorted(losses.items())},
        }
        if dev and (epoch % log_every == 0 or epoch == settings.epochs):
            scores = evaluate(nlp, dev)
            entry.update({k: round(scores[k], 4) for k in ("tag_acc", "las")})
        log.info("epoch %d %s", epoch, entry)
        history.append(entry)
    return nlp, history


def _sort_sentencizer_chars(path: Path) -> None:
    """spaCy writes the sentencizer's characters in set order (varies between processes);
    sorted, the saved pipeline is byte-identical across runs (its files key the parse cache)."""
    import srsly

    cfg = srsly.read_json(path)
    cfg["punct_chars"] = sorted(cfg["punct_chars"])
    srsly.write_json(path, cfg)


def train_demo_parser(
    train_path: str | Path,
    dev_path: str | Path,
    out_dir: str | Path,
    metrics_path: str | Path,
    train_config: Mapping[str, Any],
    seed: int,
    *,
    demo_seed: int = 7,
    substituted: int = 400,
    resources: str | Path | None = None,
) -> dict[str, Any]:
    """Train on the treebank, evaluate on dev and on substituted sentences, save both outputs."""
    import spacy

    from hinter import __version__
    from hinter.demo import treebank

    settings = TrainSettings.from_config(train_config)
    vocab = spacy.blank("en").vocab
    train_docs = read_docbin(train_path, vocab)
    dev_docs = read_docbin(dev_path, vocab)
    if not train_docs or not dev_docs:
        raise DataError(f"{train_path if not train_docs else dev_path}: empty treebank")
    dev = [Gold.from_doc(d) for d in dev_docs]
    started = time.perf_counter()
    nlp, history = train(
        train_docs, settings, seed, dev=dev, log_every=max(1, settings.epochs // 4)
    )
    seconds = time.perf_counter() - started
    subs = [Gold.from_sentence(s) for s in treebank.substituted(substituted, demo_seed, resources)]
    scores = {"dev": evaluate(nlp, dev), "substituted": evaluate(nlp, subs)}
    version = f"{__version__}+{fingerprint([train_path, dev_path], settings, seed)}"
    nlp.meta.update(
        name=PIPELINE_NAME,
        version=version,
        description="hinter's offline demo parser: tagger + dependency parser trained on the "
        "demo grammar's treebank; sentence boundaries from the rule-based sentencizer",
        sources=[{"name": "hinter demo treebank", "url": "", "license": "MIT"}],
        performance={
            "tag_acc": scores["dev"]["tag_acc"],
            "dep_uas": scores["dev"]["uas"],
            "dep_las": scores["dev"]["las"],
        },
    )
    out_dir = Path(out_dir)
    tmp = out_dir.with_name(f".{out_dir.name}.tmp")
    if tmp.exists():
        import shutil

        shutil.rmtree(tmp)
    nlp.to_disk(tmp)
    _sort_sentencizer_chars(tmp / "sentencizer.json")
    if out_dir.exists():
        import shutil

        shutil.rmtree(out_dir)
    tmp.rename(out_dir)
    metrics = {
        "pipeline": {
            "name": PIPELINE_NAME,
            "version": version,
            "spacy": spacy.__version__,
            "components": list(nlp.pipe_names),
        },
        "settings": asdict(settings),
        "seed": seed,
        "treebank": {
            "train_texts": len(train_docs),
            "train_sentences": sum(len(list(d.sents)) for d in train_docs),
            "train_tokens": sum(len(d) for d in train_docs),
            "dev_texts": len(dev_docs),
            "dev_tokens": sum(len(d) for d in dev_docs),
        },
        "train_seconds": round(seconds, 2),
        "history": history,
        **{
            k: {m: (round(v, 5) if isinstance(v, float) else v) for m, v in s.items()}
            for k, s in scores.items()
        },
    }
    io.write_json(metrics_path, metrics)
    log.info(
        "demo parser %s: dev %s; substituted %s; %.1f s",
        version,
        scores["dev"],
        scores["substituted"],
        seconds,
    )
    return metrics
