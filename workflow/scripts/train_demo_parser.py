"""Rule train_demo_parser: treebank -> spaCy pipeline (sentencizer, tagger, parser) + metrics."""

from hinter.demo import parser
from hinter.workflow import run

run(
    snakemake,
    lambda: parser.train_demo_parser(
        snakemake.input.train,
        snakemake.input.dev,
        snakemake.output.pipeline,
        snakemake.output.metrics,
        snakemake.params.train,
        snakemake.params.seed,
        demo_seed=snakemake.params.demo_seed,
        substituted=snakemake.params.substituted,
        resources=snakemake.params.resources,
    ),
)
