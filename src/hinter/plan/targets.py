"""The files a configuration asks for: typed records (keys and path) and the inputs of the
rules' jobs, as pure functions of the validated config and the run's :class:`RunLayout`.

``workflow/rules/common.smk`` wires these to Snakemake: a rule lists :func:`paths` of the records
as its input and passes the records themselves as a ``files`` param, so a script reads each
file's keys beside its path and never zips a key list with an input list. Every list is in plan
order (datasets, tracks, suites, shards; model runs in config order).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hinter.layout import DEFAULT_VARIANT, RunLayout, Variant
from hinter.plan import runs as R
from hinter.plan.suites import (
    RQ_ORDER,
    higher_order_runs,
    parse_suite,
    shard_ids,
    suite_name,
    suite_spec,
    suites,
    variant_suites,
)


@dataclass(frozen=True)
class OutcomeTarget:
    """An outcomes file of one (model, dataset, suite, variant)."""

    model: str
    dataset: str
    suite: str
    variant: str
    path: str

    @property
    def order(self) -> int:
        return len(parse_suite(self.suite))


@dataclass(frozen=True)
class ScoreTarget:
    """The grammar scores of one (model, dataset) (RQ2, RQ3.3)."""

    model: str
    dataset: str
    path: str


@dataclass(frozen=True)
class ShardTarget:
    """The mutants and validity files of one (track, dataset, suite, shard)."""

    track: str
    dataset: str
    suite: str
    shard: str
    mutants: str
    validity: str


@dataclass(frozen=True)
class SummaryTarget:
    """A per-(track, dataset) summary file (mutation or validity)."""

    track: str
    dataset: str
    path: str


@dataclass(frozen=True)
class DocumentTarget:
    """The tested documents of one (dataset, shard)."""

    dataset: str
    shard: str
    path: str


def paths(records: Iterable, field: str = "path") -> list[str]:
    """The paths of records (a rule's input list), in their order."""
    return [getattr(r, field) for r in records]


def _suite_names(config: dict, dataset: str, track: str, model: str | None = None) -> list[str]:
    return [s.name for s in suites(config, dataset, track, model)]


def variant_suite_names(config: dict, dataset: str, model: str, variant: str) -> list[str]:
    """The suites a model's variant is tested on (RQ6's variants stop at RQ_ORDER)."""
    track = R.model_track(config, model)
    return [s.name for s in variant_suites(config, dataset, track, model, variant)]


def _track_datasets(config: dict) -> list[tuple[str, str]]:
    """(track, dataset) of every mutated dataset, datasets in config order."""
    return [(t, ds) for ds in config["datasets"] for t in R.tracks(config, ds)]


# -- mutants, validity and their summaries ------------------------------------------------------
def shards(config: dict, L: RunLayout) -> list[ShardTarget]:
    """Every (track, dataset, suite, shard) with its mutants and validity files."""
    return [
        ShardTarget(
            track, ds, suite, sh, L.mutants(track, ds, suite, sh), L.validity(track, ds, suite, sh)
        )
        for track, ds in _track_datasets(config)
        for suite in _suite_names(config, ds, track)
        for sh in shard_ids(config, ds)
    ]


def mutation_summaries(config: dict, L: RunLayout) -> list[SummaryTarget]:
    return [SummaryTarget(t, ds, L.mutation_summary(t, ds)) for t, ds in _track_datasets(config)]


def validity_summaries(config: dict, L: RunLayout) -> list[SummaryTarget]:
    return [SummaryTarget(t, ds, L.validity_summary(t, ds)) for t, ds in _track_datasets(config)]


def tested(
    config: dict, L: RunLayout, datasets: Iterable[str] | None = None
) -> list[DocumentTarget]:
    """The tested documents of every shard of ``datasets`` (default: the config's)."""
    return [
        DocumentTarget(ds, sh, L.tested(ds, sh))
        for ds in (config["datasets"] if datasets is None else datasets)
        for sh in shard_ids(config, ds)
    ]


# -- model outputs ------------------------------------------------------------------------------
def predictions(config: dict, L: RunLayout) -> list[str]:
    return [
        L.predictions(r.model, r.dataset, sh, v)
        for r in R.model_runs(config)
        for v in R.variants(config, r.model, r.dataset)
        for sh in shard_ids(config, r.dataset)
    ]


def outcomes(config: dict, L: RunLayout) -> list[OutcomeTarget]:
    """Every outcomes file of the default variant."""
    return [
        OutcomeTarget(
            r.model, r.dataset, suite, DEFAULT_VARIANT, L.outcomes(r.model, r.dataset, suite)
        )
        for r in R.model_runs(config)
        for suite in _suite_names(config, r.dataset, r.track, r.model)
    ]


def variant_outcomes(config: dict, L: RunLayout) -> list[OutcomeTarget]:
    """Every outcomes file of every planned variant (RQ6: ``sensitivity`` adds repeated runs
    and alternative prompts of some LLMs)."""
    return [
        OutcomeTarget(r.model, r.dataset, suite, v, L.outcomes(r.model, r.dataset, suite, v))
        for r in R.model_runs(config)
        for v in R.variants(config, r.model, r.dataset)
        for suite in variant_suite_names(config, r.dataset, r.model, v)
    ]


def hidden_examples(config: dict, L: RunLayout) -> list[str]:
    """The rendered examples of every intersectional suite of the default variant."""
    return [
        L.examples(t.model, t.dataset, t.suite)
        for t in outcomes(config, L)
        if t.suite.startswith("inter-")
    ]


def grammar_scores(config: dict, L: RunLayout) -> list[ScoreTarget]:
    """The grammar scores of every grammar run (``grammar.models`` x ``grammar.datasets``)."""
    return [
        ScoreTarget(r.model, r.dataset, L.grammar_scores(r.model, r.dataset))
        for r in R.grammar_runs(config)
    ]


# -- RQ5 and RQ6 --------------------------------------------------------------------------------
def rq5_outcomes(config: dict, L: RunLayout) -> list[OutcomeTarget]:
    """Every suite of the runs with a suite of order >= 3."""
    chosen = {(r.model, r.dataset) for r in higher_order_runs(config)}
    return [t for t in outcomes(config, L) if (t.model, t.dataset) in chosen]


def rq5_documents(config: dict, L: RunLayout) -> list[DocumentTarget]:
    """The tested documents of those runs' datasets (their positions, for the limit)."""
    chosen = dict.fromkeys(r.dataset for r in higher_order_runs(config))
    return tested(config, L, chosen)


def rq5_examples(config: dict, L: RunLayout) -> list[str]:
    return [
        L.examples(t.model, t.dataset, t.suite) for t in rq5_outcomes(config, L) if t.order >= 3
    ]


def rq6_variant_outcomes(config: dict, L: RunLayout) -> list[OutcomeTarget]:
    """The order-RQ_ORDER suites of every variant of the runs with variants (Fig. 11)."""
    chosen = {(m, d) for m, d, _ in R.variant_runs(config)}
    return [
        t
        for t in variant_outcomes(config, L)
        if (t.model, t.dataset) in chosen and t.order == RQ_ORDER
    ]


def rq6_threshold_outcomes(config: dict, L: RunLayout) -> list[OutcomeTarget]:
    """The default run's order-RQ_ORDER suites that Fig. 12 covers."""
    chosen = set(R.threshold_runs(config))
    return [
        t for t in outcomes(config, L) if (t.model, t.dataset) in chosen and t.order == RQ_ORDER
    ]


# -- the inputs of one job (Snakemake input functions call these with the wildcards) ------------
def check_planned(config: dict, model: str, dataset: str, variant: str, suite: str | None = None):
    """A model output is built only for what the config plans: its variants and suites."""
    if variant not in R.variants(config, model, dataset):
        raise ValueError(f"{model} has no variant {variant} on {dataset}")
    if suite is not None and suite not in variant_suite_names(config, dataset, model, variant):
        raise ValueError(f"{model} ({variant}) is not tested on suite {suite} of {dataset}")


def predict_inputs(
    config: dict, L: RunLayout, model: str, dataset: str, shard: str, variant: str
) -> dict:
    """A model's inputs for one shard: its weights (an encoder) or its few-shot examples' train
    split (an LLM), the originals and every suite's mutants."""
    check_planned(config, model, dataset, variant)
    track = R.model_track(config, model)
    tested = variant_suite_names(config, dataset, model, variant)
    inputs: dict = {
        "docs": L.tested(dataset, shard),
        "mutants": [L.mutants(track, dataset, s, shard) for s in tested],
        "validity": [L.validity(track, dataset, s, shard) for s in tested],
    }
    if R.llm_spec(config, model) is not None:
        inputs["train"] = L.documents(dataset, "train")
        v = Variant.from_name(variant)
        if v.run > 1 and R.llm_backend(config, model) != "openai":
            # a local model's repeated run finds its answers in the prediction cache, so it
            # waits for its first run: greedy, the first run's own answers; sampled
            # (sensitivity.runs_decoding), those the default run decoded for it from the same
            # prefill (R.shared_decodings), under its own seed's cache entries
            inputs["first_run"] = L.predictions(model, dataset, shard, Variant(v.prompt).name)
    else:
        inputs["model"] = L.model_weights(model, dataset)
    return inputs


def mutate_inputs(config: dict, L: RunLayout, track: str, dataset: str, shard: str) -> dict:
    """A suite's inputs: the shard's documents, the pairs, and for a track whose window comes
    from its LLMs the shard's windows (what they read, their few-shot examples)."""
    inputs = {"docs": L.tested(dataset, shard), "pairs": L.dictionary("pairs.parquet")}
    if config["mutation"]["tracks"][track].get("from_models"):
        inputs["windows"] = L.windows(track, dataset, shard)
    return inputs


def outcome_inputs(
    config: dict, L: RunLayout, model: str, dataset: str, suite: str, variant: str
) -> dict:
    """Everything the oracle needs for one (model, dataset, suite), over all shards."""
    check_planned(config, model, dataset, variant, suite)
    track = R.model_track(config, model)
    ids = shard_ids(config, dataset)
    return {
        "docs": [L.tested(dataset, sh) for sh in ids],
        "mutants": [L.mutants(track, dataset, suite, sh) for sh in ids],
        "validity": [L.validity(track, dataset, suite, sh) for sh in ids],
        "predictions": [L.predictions(model, dataset, sh, variant) for sh in ids],
        "meta": L.meta(dataset),
    }


def grammar_inputs(config: dict, L: RunLayout, model: str, dataset: str, variant: str) -> dict:
    """Outcomes of every suite of the model, the suites' mutants and the tested documents."""
    track = R.model_track(config, model)
    names = _suite_names(config, dataset, track, model)
    ids = shard_ids(config, dataset)
    return {
        "outcomes": [L.outcomes(model, dataset, s, variant) for s in names],
        "mutants": [L.mutants(track, dataset, s, sh) for s in names for sh in ids],
        "docs": [L.tested(dataset, sh) for sh in ids],
    }


def stage_stats(config: dict, L: RunLayout, stage: str, track: str, dataset: str) -> list[str]:
    """The per-(suite, shard) statistics a (track, dataset) summary reads: ``mutate`` or
    ``invariant``."""
    stats = {"mutate": L.mutant_stats, "invariant": L.validity_stats}[stage]
    return [
        stats(track, dataset, suite, shard)
        for suite in _suite_names(config, dataset, track)
        for shard in shard_ids(config, dataset)
    ]


class JobInputs:
    """The input functions and per-job params of the per-dataset, per-shard and per-model rules,
    bound to one config and layout (``workflow/rules/common.smk``: ``J = JobInputs(config, L)``).
    Each method takes a job's wildcards (anything with the attributes it reads)."""

    SPLITS = ("train", "validation", "test")

    def __init__(self, config: dict, layout: RunLayout) -> None:
        self.config, self.L = config, layout
        self.demo = config["data"]["source"] == "demo"

    # -- data ------------------------------------------------------------------------------
    def meta(self, wc) -> str:
        return self.L.meta(wc.dataset)

    def splits(self, wc) -> list[str]:
        return [self.L.documents(wc.dataset, s) for s in self.SPLITS]

    def test_splits(self, wc) -> list[str]:
        return [self.L.documents(wc.dataset, s) for s in self.config["data"]["test_splits"]]

    def train(self, wc) -> str:
        return self.L.documents(wc.dataset, "train")

    def shard_docs(self, wc) -> str:
        return self.L.tested(wc.dataset, wc.shard)

    def n_shards(self, wc) -> int:
        return len(shard_ids(self.config, wc.dataset))

    def document_order(self, wc) -> str:
        return self.config["data"]["order"].get(wc.dataset, "split")

    def hub_source(self, wc) -> dict:
        return self.config["data"]["hub"].get(wc.dataset, {})

    def user_spec(self, wc) -> dict:
        return self.config["user_datasets"][wc.dataset]

    def from_hub(self, wc) -> bool:
        """Whether a dataset's few-shot rows come from the hub (not the demo, not a user
        dataset's own prompt)."""
        return not self.demo and wc.dataset not in self.config["user_datasets"]

    # -- mutation and the invariant ----------------------------------------------------------
    def mutate(self, wc) -> dict:
        return mutate_inputs(self.config, self.L, wc.track, wc.dataset, wc.shard)

    def suite_spec(self, wc):
        return suite_spec(self.config, wc.dataset, wc.track, wc.suite)

    def track_llms(self, wc) -> list:
        return R.track_llms(self.config, wc.track, wc.dataset)

    def track_settings(self, wc) -> dict:
        """The settings of a job's track (its ``track`` wildcard, or its model's)."""
        track = getattr(wc, "track", None) or R.model_track(self.config, wc.model)
        return self.config["mutation"]["tracks"][track]

    def mutant_stats(self, wc) -> list[str]:
        return stage_stats(self.config, self.L, "mutate", wc.track, wc.dataset)

    def validity_stats(self, wc) -> list[str]:
        return stage_stats(self.config, self.L, "invariant", wc.track, wc.dataset)

    def atomic_validity(self, wc) -> list[str]:
        """An intersectional suite's atomic parents' verdicts (none for an atomic suite): the
        parse cache then holds its parents' sentences, and their verdicts must agree."""
        if not wc.suite.startswith("inter-"):
            return []
        atomic = [suite_name((a,)) for a in parse_suite(wc.suite)]
        return [self.L.validity(wc.track, wc.dataset, s, wc.shard) for s in atomic]

    # -- models, the oracle and the grammar stage ---------------------------------------------
    def predict(self, wc) -> dict:
        return predict_inputs(self.config, self.L, wc.model, wc.dataset, wc.shard, wc.variant)

    def calls_api(self, wc) -> bool:
        """Whether a model is an API's (no GPU; capped by the ``api`` resource)."""
        return R.llm_backend(self.config, wc.model) == "openai"

    def gpu(self, wc) -> int:
        return 0 if self.calls_api(wc) else 1

    def api(self, wc) -> int:
        return 1 if self.calls_api(wc) else 0

    def model_kind(self, wc) -> str:
        return "llm" if R.llm_spec(self.config, wc.model) is not None else "encoder"

    def encoder_spec(self, wc) -> dict:
        return self.config["models"]["encoders"][wc.model]

    def variant_spec(self, wc) -> dict | None:
        return R.variant_spec(self.config, wc.model, wc.variant)

    def shared_decodings(self, wc) -> list[dict]:
        return R.shared_decodings(self.config, wc.model, wc.dataset, wc.variant)

    def keeps_discarded(self, wc) -> bool:
        return R.keeps_discarded(self.config, wc.model)

    def outcome(self, wc) -> dict:
        return outcome_inputs(self.config, self.L, wc.model, wc.dataset, wc.suite, wc.variant)

    def outcome_mutants(self, wc) -> list[str]:
        return self.outcome(wc)["mutants"]

    def outcome_docs(self, wc) -> list[str]:
        return self.outcome(wc)["docs"]

    def grammar(self, wc) -> dict:
        return grammar_inputs(self.config, self.L, wc.model, wc.dataset, wc.variant)

    def model_suites(self, wc) -> list[str]:
        """The suites a model is tested on (its default variant)."""
        return _suite_names(self.config, wc.dataset, R.model_track(self.config, wc.model), wc.model)

    def document_share(self, wc) -> tuple[int, int]:
        return R.document_share(R.grammar_runs(self.config), self.config, wc.model, wc.dataset)
