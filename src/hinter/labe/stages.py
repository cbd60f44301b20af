"""The LABE stages as the workflow's rules and ``hinter generate-test`` call them: one function
per rule, plain paths in, files written atomically out."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from hinter import io, render
from hinter.errors import ConfigError
from hinter.labe import data, generate, metric, mutants, score, table1

log = logging.getLogger(__name__)
RELEASED = ("chatgpt", "mistral", "llama3")
HUMAN = "human"


def score_source(
    source: str,
    path: str | Path,
    model_dir: str | Path,
    out: str | Path,
    *,
    cache_dir: str | Path,
    limit: int | None = None,
) -> pd.DataFrame:
    """Per-text scores of one released generation file or of the human reviews."""
    from hinter.labe.classify import AgencyClassifier

    frame = data.read_human_reviews(path) if source == HUMAN else data.read_generations(path)
    frame = frame.drop(columns=["authors_sentences"], errors="ignore")
    clf = AgencyClassifier(model_dir, cache_dir)
    try:
        scored = score.score_frame(frame, clf, metric.SentenceSplitter(), limit=limit)
    finally:
        clf.close()
    scored.insert(0, "source", source)
    _write(scored, out)
    log.info("%s: %d texts, %d sentences", source, len(scored), int(scored["sentences"].sum()))
    return scored


def _write(frame: pd.DataFrame, out: str | Path) -> None:
    import pyarrow as pa

    io.write_parquet(pa.Table.from_pandas(frame, preserve_index=False), out)


def _read(path: str | Path) -> pd.DataFrame:
    return io.read_parquet(path).to_pandas()


def released_tables(
    scores: Mapping[str, str | Path],
    metrics_path: str | Path,
    human_csv: str | Path | None,
    outputs: Mapping[str, str | Path],
    *,
    resamples: int,
    seed: int,
) -> pd.DataFrame:
    """Table 1 (paper vs run), every estimate, the classifier's LAC scores and the splitter
    comparison; returns the estimates (the figures' data, :mod:`hinter.plots.labe`)."""
    scored = {s: _read(p) for s, p in scores.items() if s != HUMAN}
    human = _read(scores[HUMAN]) if HUMAN in scores else None
    est = table1.estimates(scored, resamples=resamples, seed=seed, human=human)
    metrics = io.read_json(metrics_path)
    render.write_table(table1.table1(est, metrics), Path(outputs["table1"]).with_suffix(""))
    render.write_csv(est, outputs["estimates"])
    render.write_table(
        table1.classifier_table(metrics), Path(outputs["classifier"]).with_suffix("")
    )
    rows = []
    if human_csv is not None:
        reviews = data.read_human_reviews(human_csv)
        agreement = score.splitter_agreement(
            list(reviews["text"]), list(reviews["authors_sentences"]), metric.SentenceSplitter()
        )
        rows.append({"texts": "RateMyProfessor reviews (the authors' split released)", **agreement})
    render.write_csv(pd.DataFrame(rows), outputs["splitter"])
    return est


# -- generation --------------------------------------------------------------------------------


def persons_of(items: Sequence[Mapping[str, Any]], key: str) -> list[generate.Person]:
    if not items:
        raise ConfigError(f"{key}: at least one person")
    return [generate.Person.from_config(p, f"{key}[{i}]") for i, p in enumerate(items)]


def generation_plan(
    settings: Mapping[str, Any], key: str = "config key labe.generation.persons"
) -> pd.DataFrame:
    """The prompts of a generation run (persons x templates x seeds x mutants); ``key`` names
    the persons' source in errors (the config key, or ``--persons``)."""
    for t in settings["templates"]:
        if t not in generate.TEMPLATES:
            known = ", ".join(generate.TEMPLATES)
            raise ConfigError(f"config key labe.generation.templates: unknown {t!r} ({known})")
    persons = persons_of(settings["persons"], key)
    for i, p in enumerate(persons):
        for attr, values in (("race", settings["races"]), ("gender", settings["genders"])):
            if getattr(p, attr) not in values:
                raise ConfigError(
                    f"{key}[{i}].{attr}: {getattr(p, attr)!r} is not one of {', '.join(values)}"
                )
    return generate.prompt_plan(
        persons,
        settings["templates"],
        settings["seeds"],
        settings["races"],
        settings["genders"],
        settings["mutants"],
    )


def run_generation(
    name: str,
    spec: Mapping[str, Any],
    settings: Mapping[str, Any],
    out: str | Path,
    *,
    cache_dir: str | Path,
    dry_run: bool = False,
) -> dict[str, Any]:
    """Generate every prompt of the plan (cached), after the dry estimate of a paid model."""
    plan = generation_plan(settings)
    spec = generate.backend_spec(spec, cache_dir, f"labe.generation.llms.{name}")
    gen = generate.Generator(
        name,
        spec,
        max_new_tokens=settings["max_new_tokens"],
        cache_dir=cache_dir,
        decoding=settings.get("decoding"),
        context_tokens=settings.get("context_tokens", 4096),
    )
    try:
        estimate = gen.estimate(plan)
        if estimate:
            log.info("dry estimate for %s: %s", name, estimate)
        if dry_run:
            return {"prompts": len(plan), "estimate": estimate, "generated": 0}
        done = gen.generate(plan)
        generated = gen.generated()
    finally:
        gen.close()
    done.insert(0, "llm", name)
    _write(done, out)
    return {"prompts": len(plan), "estimate": estimate, "generated": generated}


def generation_tables(
    generations: Mapping[str, str | Path],
    model_dir: str | Path,
    settings: Mapping[str, Any],
    outputs: Mapping[str, str | Path],
    *,
    cache_dir: str | Path | None,
    resamples: int,
    seed: int,
) -> dict[str, pd.DataFrame]:
    """Score the generations of every LLM: LABE's variances (originals only) and the mutant
    verdicts (atomic, intersectional, hidden) with intervals; tables and scores (the figure:
    :func:`hinter.plots.labe.write_mutant_rates` of the returned rates)."""
    from hinter.labe.classify import AgencyClassifier

    clf = AgencyClassifier(model_dir, cache_dir)
    splitter = metric.SentenceSplitter()
    scored_all, variances, verdicts, rate_rows = [], [], [], []
    try:
        for llm, path in generations.items():
            gen = _read(path)
            frame = gen.rename(columns={"generation": "text"}).fillna({"text": ""})
            scored = score.score_frame(frame, clf, splitter)
            scored_all.append(scored)
            originals = scored[scored["mutation"] == generate.ORIGINAL]
            for template, part in originals.groupby("template", sort=True):
                v = (
                    metric.bias(part)
                    if part["race"].nunique() > 1 < part["gender"].nunique()
                    else {}
                )
                for dim, value in v.items():
                    variances.append(
                        {"llm": llm, "template": template, "dimension": dim, "variance": value}
                    )
            if (scored["mutation"] != generate.ORIGINAL).any():
                pairs = mutants.pair_verdicts(
                    mutants.paired_differences(scored), settings["threshold"], settings["alpha"]
                )
                pairs.insert(0, "llm", llm)
                verdicts.append(pairs)
                cases = mutants.case_verdicts(pairs)
                rates = mutants.rates(cases, resamples=resamples, seed=seed)
                rates.insert(0, "llm", llm)
                rate_rows.append(rates)
    finally:
        clf.close()
    scores = pd.concat(scored_all, ignore_index=True)
    _write(scores, outputs["scores"])
    pair_frame = pd.concat(verdicts, ignore_index=True) if verdicts else pd.DataFrame()
    rate_frame = (
        pd.concat(rate_rows, ignore_index=True)
        if rate_rows
        else pd.DataFrame(columns=["llm", "bias", "cases", "biased", "rate", "low", "high"])
    )
    render.write_csv(pair_frame, outputs["pairs"])
    render.write_csv(pd.DataFrame(variances), outputs["variances"])
    render.write_table(_rates_table(rate_frame, settings), Path(outputs["bias"]).with_suffix(""))
    return {"scores": scores, "pairs": pair_frame, "rates": rate_frame}


def _rates_table(rates: pd.DataFrame, settings: Mapping[str, Any]) -> render.Table:
    shown = pd.DataFrame(
        {
            "LLM": rates["llm"],
            "agency bias": rates["bias"].str.replace("_", " "),
            "persons": rates["cases"],
            "biased": rates["biased"],
            "rate (%) [95% CI]": [
                f"{100 * r:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"
                for r, lo, hi in zip(rates["rate"], rates["low"], rates["high"], strict=True)
            ],
        }
    )
    caption = (
        "Agency bias between each person's prompt and its mutants (race only, gender only: "
        "atomic; both: intersectional), generated under the same seeds. A pair is biased when "
        f"its mean ratio-gap difference over templates and seeds exceeds {settings['threshold']} "
        f"and a paired t-test rejects equal means at {settings['alpha']}; hidden intersectional "
        "bias: the intersectional pair biased, neither atomic one. Interval: percentile bootstrap "
        "over persons."
    )
    body = render.markdown_table(shown, right=["persons", "biased", "rate (%) [95% CI]"])
    return render.Table(
        rates, render.document("LABE generation: mutant agency bias", caption, body)
    )
