"""A seeded synthetic SBIC split in the real file formats (per-annotation and aggregated CSVs).

The posts are neutral placeholder sentences; what matters is the annotation structure the
extraction has to handle: three workers per post, one row per targeted category, group names
typed with stray case, dots, quotes and brackets, two groups of a category in one cell, and posts
that target two categories at once (where the aggregated file pools the lists and crossing them
would put "women" into race). ``truth`` lists what each post really targets, for tests.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from hinter.dictionary import sbic

# Canonical group names per SBIC category; each belongs to one category only, so any term that
# shows up under another category in an extraction is leakage. Several match dictionary words
# ("black", "women", "autistic folks"), others are deliberately missing from the dictionary
# (curation candidates: "feminists", "fat folks", "latino folks").
GROUPS: dict[str, tuple[str, ...]] = {
    "race": (
        "black folks",
        "asian folks",
        "white folks",
        "mexican folks",
        "latino folks",
        "native american folks",
    ),
    "gender": ("women", "men", "feminists", "trans women", "girls"),
    "culture": ("muslims", "jewish folks", "christians", "arabic folks"),
    "body": ("fat folks", "ugly folks", "old folks", "short folks"),
    "disabled": ("autistic folks", "mentally disabled folks", "physically disabled folks"),
    "victim": ("assault victims", "cancer patients", "rape victims"),
    "social": ("poor folks", "liberals", "homeless folks"),
}
_CATEGORY_WEIGHTS = {
    "race": 5,
    "gender": 5,
    "culture": 2,
    "body": 2,
    "disabled": 2,
    "victim": 1,
    "social": 1,
}
_SOURCES = ("t/davidson", "t/founta", "t/waseem", "r/darkjokes", "r/meanjokes", "r/offensivejokes")
_PLACES = ("the weekend thread", "a comment section", "the bus", "a cooking forum", "the news")
_WORKERS = 40
_ANNOTATORS = 3


@dataclass(frozen=True)
class DemoSplit:
    annotations: list[dict[str, str]]  # rows in ANNOTATION_COLUMNS
    truth: list[tuple[str, str, str]]  # (post, category, canonical group) named by >=1 worker


def _surface(rng: random.Random, group: str) -> str:
    """The group as a worker might type it (extraction must normalise it back)."""
    forms = (
        group,
        group,
        group,
        group.capitalize(),
        group.title(),
        f"{group}.",
        f'"{group}"',
        f"({group})",
        f" {group} ",
        group.upper(),
    )
    return rng.choice(forms)


def _hit_id(rng: random.Random) -> str:
    return "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(30))


def generate(posts: int, seed: int, split: str) -> DemoSplit:
    """``posts`` synthetic posts of one split; the same arguments give the same rows."""
    rng = random.Random(f"hinter-demo-sbic:{seed}:{split}")
    categories = list(_CATEGORY_WEIGHTS)
    weights = [_CATEGORY_WEIGHTS[c] for c in categories]
    workers = [str(rng.randrange(10**18, 10**19)) for _ in range(_WORKERS)]
    profiles = {
        w: {
            "annotatorGender": rng.choice(("woman", "man", "nonbinary")),
            "annotatorMinority": rng.choice(("", "women", "black folks", "lgbt folks")),
            "annotatorPolitics": rng.choice(("liberal", "mod-liberal", "moderate", "cons")),
            "annotatorRace": rng.choice(("white", "black", "asian", "hisp", "other")),
            "annotatorAge": f"{rng.randint(19, 70)}.0",
        }
        for w in workers
    }
    rows: list[dict[str, str]] = []
    truth: list[tuple[str, str, str]] = []
    for i in range(posts):
        offensive = rng.random() < 0.75
        targets: list[tuple[str, tuple[str, ...]]] = []
        if offensive:
            n_categories = 2 if rng.random() < 0.3 else 1
            chosen: list[str] = []
            while len(chosen) < n_categories:
                c = rng.choices(categories, weights)[0]
                if c not in chosen:
                    chosen.append(c)
            for c in chosen:
                n_groups = 2 if rng.random() < 0.15 else 1
                targets.append((c, tuple(rng.sample(GROUPS[c], n_groups))))
        mentioned = " and ".join(g for _, gs in targets for g in gs) or "nobody in particular"
        post = (
            f"[synthetic {split} post {i:04d}] a remark about {mentioned} in {rng.choice(_PLACES)}."
        )
        hit = _hit_id(rng)
        source = rng.choice(_SOURCES)
        named: set[tuple[str, str]] = set()
        for worker in rng.sample(workers, _ANNOTATORS):
            base = {
                "HITId": hit,
                "WorkerId": worker,
                "post": post,
                "dataSource": source,
                "sexYN": rng.choice(("0.0", "0.0", "0.0", "1.0")),
                "sexReason": "",
                "sexPhrase": "",
                **profiles[worker],
            }
            worker_rows = []
            attentive = rng.random() < 0.95  # some workers name no target at all
            for category, groups in targets if attentive else ():
                typed = [g for g in groups if rng.random() < 0.85]
                if not typed:
                    continue
                named.update((category, g) for g in typed)
                worker_rows.append(
                    {
                        **base,
                        "whoTarget": "1.0",
                        "intentYN": rng.choice(("0.5", "1.0", "1.0")),
                        "offensiveYN": rng.choice(("0.5", "1.0", "1.0")),
                        "speakerMinorityYN": rng.choice(("0.0", "0.0", "1.0")),
                        "targetMinority": ", ".join(_surface(rng, g) for g in typed),
                        "targetCategory": category,
                        "targetStereotype": f"{typed[0]} are assumed to be all alike (synthetic)",
                    }
                )
            if not worker_rows:
                worker_rows.append(
                    {
                        **base,
                        "whoTarget": "",
                        "intentYN": "0.0",
                        "offensiveYN": "0.0" if not offensive else "0.5",
                        "speakerMinorityYN": "",
                        "targetMinority": "",
                        "targetCategory": "",
                        "targetStereotype": "",
                    }
                )
            rows.extend(worker_rows)
        truth.extend((post, c, g) for c, g in sorted(named))
    return DemoSplit(rows, truth)


def write_split(
    annotations_path: str | Path, aggregated_path: str | Path, posts: int, seed: int, split: str
) -> DemoSplit:
    """Write ``SBIC.v2.<split>.csv`` and ``SBIC.v2.agg.<split>.csv`` for one synthetic split."""
    demo = generate(posts, seed, split)
    sbic.write_csv(annotations_path, sbic.ANNOTATION_COLUMNS, demo.annotations)
    sbic.write_csv(aggregated_path, sbic.AGGREGATED_COLUMNS, sbic.aggregate(demo.annotations))
    return demo
