"""The mutation suites a configuration asks for, and the shards documents are split into."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from itertools import combinations

from hinter.layout import DEFAULT_VARIANT
from hinter.plan.runs import model_runs

# The paper names the race x gender combination "race+gender"; every other suite lists its
# attributes alphabetically (docs/design.md §4: inter-body+gender, inter-body+race,
# inter-body+gender+race).
_PAPER_ORDER = {("gender", "race"): ("race", "gender")}

# The intersectional order of RQ4's and RQ6's figures (the paper's: N=2).
RQ_ORDER = 2


@dataclass(frozen=True)
class Suite:
    """A mutation suite: the attributes mutated together and an optional document limit."""

    attributes: tuple[str, ...]
    max_documents: int | None = None

    @property
    def order(self) -> int:
        return len(self.attributes)

    @property
    def name(self) -> str:
        return suite_name(self.attributes)


def suite_name(attributes: tuple[str, ...] | list[str]) -> str:
    """Canonical suite name: ``atomic-<a>`` or ``inter-<a>+<b>[+<c>...]``."""
    attrs = tuple(sorted(attributes))
    if len(attrs) == 1:
        return f"atomic-{attrs[0]}"
    return "inter-" + "+".join(_PAPER_ORDER.get(attrs, attrs))


def parse_suite(name: str) -> tuple[str, ...]:
    """Inverse of :func:`suite_name`: the sorted attributes of a suite name."""
    kind, _, rest = name.partition("-")
    if kind not in ("atomic", "inter") or not rest:
        raise ValueError(f"not a suite name: {name!r}")
    attrs = tuple(sorted(rest.split("+")))
    if (kind == "atomic") != (len(attrs) == 1):
        raise ValueError(f"not a suite name: {name!r}")
    return attrs


def suites(config: dict, dataset: str, track: str, model: str | None = None) -> list[Suite]:
    """Suites to generate for (dataset, track), or to test for one model when ``model`` is given.

    Base orders apply everywhere; ``mutation.higher_orders`` entries only where their dataset and
    model filters match. Atomic suites of every tested attribute are always present, because the
    atomic parents of intersectional mutants are needed to decide hidden bias.
    """
    attributes = list(config["attributes"])
    mutation = config.get("mutation", {})
    wanted: dict[tuple[str, ...], int | None] = {}

    def add(order: int, limit: int | None) -> None:
        for combo in combinations(sorted(attributes), order):
            if combo not in wanted:
                wanted[combo] = limit
            elif wanted[combo] is not None:  # an unlimited request wins over a limited one
                wanted[combo] = None if limit is None else max(wanted[combo], limit)

    add(1, None)
    for order in mutation.get("orders", [1, 2]):
        if order <= len(attributes):
            add(order, None)
    track_models = {
        r.model for r in model_runs(config) if r.dataset == dataset and r.track == track
    }
    for extra in mutation.get("higher_orders", []):
        if extra["order"] > len(attributes):
            continue
        if extra.get("datasets") is not None and dataset not in extra["datasets"]:
            continue
        allowed = extra.get("models")
        if allowed is not None:
            if model is not None and model not in allowed:
                continue
            if model is None and not track_models.intersection(allowed):
                continue
        add(extra["order"], extra.get("max_documents"))
    result = [Suite(combo, limit) for combo, limit in wanted.items()]
    return sorted(result, key=lambda s: (s.order, s.name))


def suite_spec(config: dict, dataset: str, track: str, suite: str) -> Suite:
    """The :class:`Suite` behind a suite name (its attributes and document limit)."""
    for s in suites(config, dataset, track):
        if s.name == suite:
            return s
    raise ValueError(f"suite {suite} is not planned for {dataset}/{track}")


def variant_suites(
    config: dict, dataset: str, track: str, model: str, variant: str = DEFAULT_VARIANT
) -> list[Suite]:
    """Suites a model's variant is tested on: every suite for the default run; RQ6's repeated
    runs and alternative prompts only read the order-:data:`RQ_ORDER` suites (and their atomic
    parents), so they predict no higher order."""
    planned = suites(config, dataset, track, model)
    if variant == DEFAULT_VARIANT:
        return planned
    return [s for s in planned if s.order <= RQ_ORDER]


@dataclass(frozen=True)
class HigherOrderRun:
    """A model run with a suite of three or more attributes (RQ5)."""

    model: str
    dataset: str
    suite: str  # the suite of the highest order
    limit: int | None  # its max_documents: the documents Table 5 covers (None = all)


def higher_order_runs(config: dict, min_order: int = 3) -> list[HigherOrderRun]:
    """Model runs with a suite of ``min_order`` attributes or more (``mutation.higher_orders``;
    the paper's first 10K IMDB reviews), in plan order."""
    out = []
    for r in model_runs(config):
        high = [s for s in suites(config, r.dataset, r.track, r.model) if s.order >= min_order]
        if high:
            top = max(high, key=lambda s: (s.order, s.name))
            out.append(HigherOrderRun(r.model, r.dataset, top.name, top.max_documents))
    return out


# -- shards -------------------------------------------------------------------------------------
def shard_ids(config: dict, dataset: str) -> list[str]:
    """Zero-padded shard identifiers of a dataset ("000", "001", ...)."""
    mutation = config.get("mutation", {})
    n = mutation.get("shards", {}).get(dataset, mutation.get("default_shards", 4))
    return [f"{i:03d}" for i in range(n)]


def n_shards(config: dict, dataset: str) -> int:
    return len(shard_ids(config, dataset))


def shard_of(doc_id: str, n_shards: int) -> int:
    """Shard index of a document, by a hash of its id: stable across runs, machines and Python
    versions."""
    digest = hashlib.blake2b(doc_id.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % n_shards
