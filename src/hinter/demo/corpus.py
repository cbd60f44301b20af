"""Synthetic demo corpora in the exact schema of the hub loader (`hinter.data`).

One dataset per name of ``hinter.data.FACTS``: IMDB-like binary sentiment (train/test and an
empty validation split, like the hub) and one LexGLUE-like set per legal task (ECtHR multi-label
over the 10 articles with empty label sets, SCOTUS the hub's 13 issue areas, EUR-LEX 100
labels multi-label, LEDGAR 100 clause types). Texts are several sentences of the demo grammar
(`hinter.demo.sentences` on `hinter.demo.grammar`), rich in bias-dictionary words of all three
attributes; the labels are learnable from topic sentences (sentiment words, label-name phrases).
Everything is drawn from ``random.Random`` seeded by (seed, dataset, split): the same settings
give the same tables.

Optional planted bias (``data.demo.planted_bias`` = s, ``resources/demo/planted_bias.tsv``): in
the TRAIN split only, documents with a cued label fill their dictionary slots from the cued
classes with probability s, so a model trained on them associates those words with the label.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from hinter import tables
from hinter.data import (
    ECTHR_ARTICLES,
    FACTS,
    SCOTUS_ISSUE_AREAS,
    SPLITS,
    check_facts,
    display_names,
    write_dataset,
)
from hinter.demo.grammar import Lexicon, Sentence, default_resources
from hinter.demo.sentences import Writer
from hinter.errors import ConfigError, DataError

log = logging.getLogger(__name__)

#: ClassLabel names as the hub loader reports them (SCOTUS: issue-area numbers; EUR-LEX: EuroVoc
#: concept ids; LEDGAR: clause types). Display names stay in resources/labels/.
# Relative frequencies of the ECtHR articles (Article 6 and 3 dominate, as in the real task).
ECTHR_WEIGHTS = (0.06, 0.17, 0.14, 0.30, 0.09, 0.01, 0.04, 0.02, 0.04, 0.13)
ECTHR_SET_SIZES = ((0.2, 0), (0.45, 1), (0.25, 2), (0.1, 3))  # share of empty sets = 0.2
EURLEX_SET_SIZES = ((0.3, 1), (0.35, 2), (0.2, 3), (0.15, 4))


def hub_label_names(dataset: str, resources: Path) -> list[str]:
    if dataset == "ecthr_a":
        return list(ECTHR_ARTICLES)
    if dataset == "scotus":
        return list(SCOTUS_ISSUE_AREAS)
    if dataset == "eurlex":
        return [str(100163 + i) for i in range(100)]
    if dataset == "ledgar":
        return display_names("ledgar", resources / "labels")
    if dataset == "imdb":
        return ["neg", "pos"]
    raise ConfigError(f"datasets: no demo generator for {dataset!r}")


@dataclass(frozen=True)
class DemoSettings:
    """``data.demo`` of the config (defaults as in the schema)."""

    seed: int = 7
    documents: Mapping[str, int] = field(
        default_factory=lambda: {"train": 48, "validation": 16, "test": 16}
    )
    sentences: tuple[int, int] = (3, 7)
    planted_bias: float = 0.0

    @classmethod
    def from_config(cls, demo: Mapping[str, Any]) -> DemoSettings:
        default = cls()
        docs = dict(default.documents)
        docs.update(demo.get("documents", {}))
        lo, hi = demo.get("sentences", default.sentences)
        if not 1 <= lo <= hi:
            raise ConfigError(f"data.demo.sentences: [{lo}, {hi}] is not a range [min, max]")
        strength = float(demo.get("planted_bias", default.planted_bias))
        if not 0.0 <= strength <= 1.0:
            raise ConfigError(f"data.demo.planted_bias: {strength} outside [0, 1]")
        return cls(int(demo.get("seed", default.seed)), docs, (int(lo), int(hi)), strength)


@dataclass
class DemoDocument:
    doc_id: str
    labels: list[int]
    sentences: list[Sentence]
    paragraph_breaks: list[int]  # sentence indices that start a new paragraph (ECtHR)
    planted: bool = False  # slots drawn with the planted bias

    @property
    def text(self) -> str:
        out = ""
        for i, s in enumerate(self.sentences):
            if i:
                out += "\n" if i in self.paragraph_breaks else " "
            out += s.text
        return out

    def attributes(self) -> set[str]:
        return set().union(*(s.attributes() for s in self.sentences))


def load_planted_bias(
    dataset: str, label_names: Sequence[str], resources: Path
) -> list[tuple[int, dict[str, tuple[str, ...]]]]:
    """The cues of one dataset: [(label id, {attribute: classes})] in file order."""
    path = resources / "demo" / "planted_bias.tsv"
    cues: dict[int, dict[str, tuple[str, ...]]] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 4:
            raise DataError(f"{path}:{n}: {len(cols)} columns, expected 4")
        ds, label, attribute, classes = cols
        if ds != dataset:
            continue
        if label not in label_names:
            raise DataError(f"{path}:{n}: {label!r} is not a label of {dataset}")
        cues.setdefault(label_names.index(label), {})[attribute] = tuple(classes.split(","))
    return list(cues.items())


def _draw_sizes(rng: random.Random, options: Sequence[tuple[float, int]]) -> int:
    x = rng.random()
    for p, k in options:
        x -= p
        if x < 0:
            return k
    return options[-1][1]


def _weighted_sample(rng: random.Random, weights: Sequence[float], k: int) -> list[int]:
    """k distinct indices drawn without replacement with the given weights."""
    pool = list(range(len(weights)))
    w = list(weights)
    out = []
    for _ in range(min(k, len(pool))):
        x = rng.random() * sum(w)
        j = len(w) - 1
        for i, wi in enumerate(w):
            x -= wi
            if x < 0:
                j = i
                break
        out.append(pool.pop(j))
        w.pop(j)
    return sorted(out)


def draw_labels(dataset: str, n: int, rng: random.Random, offset: int) -> list[list[int]]:
    """Label sets of n documents; ``offset`` = documents of the earlier splits (SCOTUS cycle)."""
    if dataset == "imdb":
        labels = [[i % 2] for i in range(offset, offset + n)]
        rng.shuffle(labels)
        return labels
    if dataset == "scotus":
        present = list(range(len(SCOTUS_ISSUE_AREAS)))
        labels = [[present[(offset + i) % len(present)]] for i in range(n)]
        rng.shuffle(labels)
        return labels
    zipf = [1.0 / (i + 1) for i in range(100)]
    if dataset == "ledgar":
        return [_weighted_sample(rng, zipf, 1) for _ in range(n)]
    if dataset == "eurlex":
        return [_weighted_sample(rng, zipf, _draw_sizes(rng, EURLEX_SET_SIZES)) for _ in range(n)]
    if dataset == "ecthr_a":
        labels = [
            _weighted_sample(rng, ECTHR_WEIGHTS, _draw_sizes(rng, ECTHR_SET_SIZES))
            for _ in range(n)
        ]
        if n >= 2 and all(labels):  # every split shows the "no violation" case
            labels[-1] = []
        return labels
    raise ConfigError(f"datasets: no demo generator for {dataset!r}")


def write_document(
    writer: Writer,
    dataset: str,
    labels: list[int],
    label_names: Sequence[str],
    n_sentences: int,
) -> tuple[list[Sentence], list[int]]:
    """Topic sentences for the labels plus narrative sentences, in a seeded order."""
    rng = writer.rng
    if dataset == "imdb":
        polarity = label_names[labels[0]]
        # a review's opinion runs through it: about two thirds of its sentences carry it
        topic = [
            writer.topic_sentence("imdb", polarity)
            for _ in range(max(2, (2 * n_sentences + 2) // 3))
        ]
    elif dataset in ("scotus", "ledgar"):
        topic = [writer.topic_sentence(dataset, labels[0]) for _ in range(max(1, n_sentences // 2))]
    else:
        topic = [writer.topic_sentence(dataset, label) for label in labels]
    # Narrative sentences: redrawn (a few times at most) until the document has words of all
    # three attributes; at least two are guaranteed by adding sentences if need be.
    for _ in range(6):
        narrative = [writer.narrative(dataset) for _ in range(max(1, n_sentences - len(topic)))]
        if len(set().union(*(s.attributes() for s in topic + narrative))) == 3:
            break
    sentences = topic + narrative
    rng.shuffle(sentences)
    tries = 0
    while len(set().union(*(s.attributes() for s in sentences))) < 2 and tries < 20:
        sentences.append(writer.narrative(dataset))
        tries += 1
    breaks: list[int] = []
    if dataset == "ecthr_a":  # paragraphs of one or two sentences, joined with newlines
        i = 0
        while i < len(sentences):
            if i:
                breaks.append(i)
            i += 1 if rng.random() < 0.5 else 2
    return sentences, breaks


def generate_documents(
    dataset: str, settings: DemoSettings, resources: str | Path | None = None
) -> dict[str, list[DemoDocument]]:
    """Every split's documents (with their annotated sentences), deterministically."""
    resources = Path(resources or default_resources())
    lexicon = Lexicon.load(resources)
    names = hub_label_names(dataset, resources)
    cues = load_planted_bias(dataset, names, resources) if settings.planted_bias > 0 else []
    out: dict[str, list[DemoDocument]] = {}
    offset = 0
    for split in SPLITS:
        n = settings.documents.get(split, 0)
        if split not in FACTS[dataset].splits_on_hub:
            n = 0  # IMDB has no validation split on the hub
        rng = random.Random(f"hinter-demo:{settings.seed}:{dataset}:{split}")
        writer = Writer(lexicon, rng)
        docs = []
        for i, labels in enumerate(draw_labels(dataset, n, rng, offset)):
            cue = (
                next((c for label, c in cues if label in labels), None)
                if split == "train"
                else None
            )
            writer.bias = dict(cue or {})
            writer.strength = settings.planted_bias if cue else 0.0
            lo, hi = settings.sentences
            sentences, breaks = write_document(writer, dataset, labels, names, rng.randint(lo, hi))
            docs.append(
                DemoDocument(f"{split}-{i:06d}", labels, sentences, breaks, cue is not None)
            )
        out[split] = docs
        offset += n
    if dataset == "scotus" and offset < 13:
        raise ConfigError(
            f"data.demo.documents: {offset} SCOTUS documents cannot show 13 issue areas "
            "(need >= 13)"
        )
    return out


def generate_dataset(
    dataset: str, settings: DemoSettings, resources: str | Path | None = None
) -> tuple[dict[str, pa.Table], dict[str, Any]]:
    """The documents tables and meta.json of one demo dataset; facts checked (sizes aside)."""
    resources = Path(resources or default_resources())
    facts = FACTS[dataset]
    names = hub_label_names(dataset, resources)
    docs = generate_documents(dataset, settings, resources)
    split_tables = {
        split: pa.table(
            {
                "doc_id": [d.doc_id for d in docs[split]],
                "text": [d.text for d in docs[split]],
                "labels": [d.labels for d in docs[split]],
            },
            schema=tables.DOCUMENTS,
        )
        for split in SPLITS
    }
    check_facts(facts, names, split_tables, check_sizes=False, where=f"demo:{dataset}")
    meta = {
        "dataset": facts.name,
        "task_type": facts.task_type,
        "label_names": names,
        "n_labels": len(names),
        "empty_label_name": facts.empty_label_name,
        "rows": {split: split_tables[split].num_rows for split in SPLITS},
        "display_names": display_names(dataset, resources / "labels"),
        "source": {"repo": "demo", "name": dataset, "revision": f"seed-{settings.seed}"},
    }
    return split_tables, meta


def write_demo_dataset(
    dataset: str,
    demo_config: Mapping[str, Any],
    out_dir: str | Path,
    resources: str | Path | None = None,
) -> dict[str, Any]:
    """Generate, check and write one demo dataset like ``hinter.data.prepare_from_hub``."""
    settings = DemoSettings.from_config(demo_config)
    split_tables, meta = generate_dataset(dataset, settings, resources)
    write_dataset(out_dir, split_tables, meta)
    if settings.planted_bias > 0:
        names = meta["label_names"]
        for label, cue in load_planted_bias(dataset, names, Path(resources or default_resources())):
            log.info(
                "%s: planted bias %.2f in train documents labelled %s: %s",
                dataset,
                settings.planted_bias,
                names[label],
                "; ".join(f"{a} <- {','.join(c)}" for a, c in cue.items()),
            )
    log.info("%s: %s rows (seed %d)", dataset, meta["rows"], settings.seed)
    return meta
