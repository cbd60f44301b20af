"""Rule `grammar_scores`: draw, materialise and score the sample of one (model, dataset)."""

from pathlib import Path

from hinter.grammar import SampleOptions, checker_settings, make_checker, score_sample
from hinter.workflow import run


def main() -> None:
    config = {"grammar": snakemake.params.grammar}
    options = SampleOptions.from_config(config, share=snakemake.params.share)
    checker = make_checker(*checker_settings(config))  # fails fast on an unusable checker
    suites = list(snakemake.params.suites)
    mutants = list(snakemake.input.mutants)
    per_suite = len(mutants) // len(suites)
    try:
        score_sample(
            outcomes=list(zip(suites, snakemake.input.outcomes, strict=True)),
            mutants={s: mutants[i * per_suite : (i + 1) * per_suite] for i, s in enumerate(suites)},
            docs=list(snakemake.input.docs),
            checker=checker,
            options=options,
            output=snakemake.output.scores,
            summary=snakemake.output.summary,
            cache_path=(
                Path(snakemake.params.cache_dir) / "grammar.sqlite"
                if config["grammar"]["cache"]
                else None
            ),
        )
    finally:
        checker.close()


run(snakemake, main)
