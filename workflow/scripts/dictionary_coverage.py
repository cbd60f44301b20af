"""Rule dictionary_coverage: curated terms vs SBIC support -> coverage.md + TSVs (printed)."""

from hinter import io
from hinter.dictionary import coverage, pairs, sbic
from hinter.workflow import run


def main():
    params = snakemake.params
    specs = pairs.load_attributes(
        params.attributes, params.resources, params.custom, params.base_dir
    )
    context = {
        "pairing": params.pairing,
        "SBIC": (
            f"{params.sbic['source']}, splits {', '.join(params.sbic['splits'])}, "
            f"{'aggregated' if params.sbic['aggregated'] else 'per-annotation'} files"
        ),
        "SBIC extraction": ", ".join(
            f"{k}={v}" for k, v in io.read_json(snakemake.input.stats).items()
        ),
        "cross_pairs_avoided": (
            "(category, group) pairs that crossing each post's pooled lists, as the paper's "
            "extractor did, would have invented"
        ),
        "category mapping": "; ".join(
            f"{a}: {'+'.join(c)}" for a, c in sorted(params.categories.items())
        ),
    }
    report = coverage.build_report(
        specs,
        io.read_parquet(snakemake.input.pairs),
        pairs.read_review(snakemake.input.review),
        sbic.read_mentions(snakemake.input.mentions),
        categories=params.categories,
        min_support=params.min_support,
        context=context,
    )
    out = snakemake.output
    coverage.write_report(report, out.markdown, out.terms, out.candidates, out.summary)
    print(report.markdown)


run(snakemake, main)
