"""Rule `rq2_tables`: RQ2's grammar-score table (Fig. 8a data)."""

from pathlib import Path

from hinter.rq import rq2
from hinter.rq.intervals import Bootstrap
from hinter.rq.scores import ScoreFile
from hinter.workflow import check_outputs, run


def main() -> None:
    out_dir = Path(snakemake.output[0]).parent
    files = [ScoreFile(t.model, t.dataset, Path(t.path)) for t in snakemake.params.files]
    written = rq2.write_tables(files, out_dir, Bootstrap(**snakemake.params.statistics))
    check_outputs(written, snakemake.output, f"{out_dir}: RQ2")


run(snakemake, main)
