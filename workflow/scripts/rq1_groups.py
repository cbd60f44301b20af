"""Rule `rq1_groups`: RQ1's group-level bias table and heatmap."""

from pathlib import Path

from hinter.plots import groups as group_plots
from hinter.rq import groups
from hinter.rq.intervals import Bootstrap
from hinter.rq.outcomes import OutcomeFile
from hinter.workflow import check_outputs, run


def main() -> None:
    params = snakemake.params
    out_dir = Path(snakemake.output[0]).parent
    files = [
        OutcomeFile(t.model, t.dataset, t.suite, Path(t.path), t.variant) for t in params.files
    ]
    written = groups.write_tables(
        files,
        snakemake.input.pairs,
        out_dir,
        datasets=list(params.datasets),
        boot=Bootstrap(**params.statistics),
    )
    written += group_plots.write_figures(out_dir, out_dir)
    check_outputs(written, snakemake.output, f"{out_dir}: RQ1 groups")


run(snakemake, main)
