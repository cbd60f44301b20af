"""Outputs never destroy or leave their place (review 2026-11-25, T04, R03, G03): cleaning a
killed run's temporary files never follows a link out of the folder; CSV cells from user text
cannot become spreadsheet formulas."""

from __future__ import annotations

import os
from pathlib import Path

from hinter import io
from hinter.layout import RunLayout


def test_cleaning_temporaries_never_follows_a_link(tmp_path):
    out, victim = tmp_path / "out", tmp_path / "victim"
    (out / "rq1").mkdir(parents=True)
    victim.mkdir()
    precious = victim / ".thesis.tex.abcd1234.tmp"
    precious.write_text("precious")
    (out / "link").symlink_to(victim, target_is_directory=True)
    (out / ".linked.csv.abcd1234.tmp").symlink_to(precious)  # a link named like a temporary
    ours = Path(RunLayout(out).rq_dir(1)) / ".table.csv.x1y2z3w4.tmp"
    ours.write_text("half")
    assert io.remove_temporaries(out) == [ours]
    assert precious.read_text() == "precious" and not ours.exists()
    assert os.path.islink(out / ".linked.csv.abcd1234.tmp")
    # a root that is itself a link is not cleaned
    assert io.remove_temporaries(out / "link") == []
    assert precious.exists()


def test_csv_cells_from_user_text_cannot_be_formulas():
    import csv as csvlib
    from io import StringIO

    import pandas as pd

    from hinter.render import csv_text

    payloads = ['=HYPERLINK("http://evil/1","x")', "+A1", "-A1", "@A1", "=1+2", "\tA", "\r=1"]
    frame = pd.DataFrame(
        {"doc_id": payloads, "text": [f"{p} The man met the woman." for p in payloads],
         "delta": [-0.25] * 7,
         "shown": ["-0.25", "-", "+", "ok", "a=b", "+1.25 [+0.50, +2.00]", "-1+cmd|' /C calc'!A0"]}
    )  # fmt: skip
    rows = list(csvlib.reader(StringIO(csv_text(frame), newline="")))
    cells = [c for row in rows[1:] for c in row[:2]]
    assert cells and not [c for c in cells if c[:1] in "=+-@\t\r"]
    assert rows[1][0] == "'" + payloads[0]  # the text is kept, behind a quote
    assert [r[2] for r in rows[1:]] == ["-0.2500"] * 7  # numbers are numbers
    assert [r[3] for r in rows[1:]] == [
        "-0.25", "-", "+", "ok", "a=b", "+1.25 [+0.50, +2.00]", "'-1+cmd|' /C calc'!A0"
    ]  # fmt: skip
