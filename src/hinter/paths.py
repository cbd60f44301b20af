"""Where the package finds its data files: the one place that knows.

In a checkout (Snakemake, ``pip install -e``) the repository's ``resources/``,
``workflow/schemas/`` and ``workflow/report/`` are read in place. A wheel (``pip install
./hinter``, as the README's CI example does) carries copies of the three folders under
``hinter/_data`` (``setup.py`` puts them there), used when no checkout surrounds the package.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parents[1]  # src/hinter -> the repository
BUNDLED = PACKAGE / "_data"  # a wheel's copies
DATA_DIRS = ("resources", "workflow/schemas", "workflow/report")


def _data_root() -> Path:
    for root in (CHECKOUT, BUNDLED):
        if (root / "workflow" / "schemas").is_dir():
            return root
    return CHECKOUT  # neither: the first read names the missing file under the checkout


ROOT = _data_root()
RESOURCES = ROOT / "resources"
SCHEMAS = ROOT / "workflow" / "schemas"
REPORT = ROOT / "workflow" / "report"
