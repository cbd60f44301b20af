"""An RQ's figures from its tables' CSV files: the one reader and the one writing loop.

Figures are drawn from the CSV files the table rules wrote (never from outcomes), so a figure
rule reruns without reading a run's outcomes and shows exactly the numbers of the tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from hinter.plots.writer import save_figure
from hinter.rq import outputs


def read_tables(
    tables_dir: str | Path, names: Sequence[str], dtype: Mapping[str, type] | None = None
) -> dict[str, pd.DataFrame]:
    """The CSV files of tables, by name; empty cells are NaN, every other cell is kept as
    written (``"NA"`` is a value). ``dtype`` fixes columns pandas would otherwise guess."""
    return {
        n: pd.read_csv(
            Path(tables_dir) / f"{n}.csv", keep_default_na=False, na_values=[""], dtype=dtype
        )
        for n in names
    }


def save_all(rq: int, figures: Mapping[str, Figure], out_dir: str | Path) -> list[Path]:
    """Write each figure of ``rq`` (its registered extensions) to ``out_dir``; the paths."""
    written: list[Path] = []
    for name, fig in figures.items():
        written += save_figure(fig, Path(out_dir) / name, outputs.get(rq, name).extensions)
    return written
