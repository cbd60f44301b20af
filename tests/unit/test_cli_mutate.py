"""`hinter mutate`: a text's mutants as a reader sees them (canonical forms, edits applied)."""

from __future__ import annotations

from hinter import cli


def test_mutate_shows_the_source_as_written_and_each_mutant(capsys):
    text = "The British man thanked his mother."
    argv = [
        "mutate",
        text,
        "--attributes",
        "race",
        "--orders",
        "1",
        "--limit",
        "2",
        "--no-invariant",
    ]
    assert cli.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    # The change names the term in its canonical casing ("British", not the key "british").
    assert lines[0].startswith("[atomic-race] British → ")
    target = lines[0].split(" → ")[1]
    assert lines[1].strip() == text.replace("British", target)
    assert len(lines) == 4  # --limit 2: two mutants, two lines each


def test_mutate_with_no_dictionary_term_says_so(capsys):
    assert cli.main(["mutate", "Nothing to change here.", "--orders", "1"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no dictionary term" in captured.err


def test_mutate_counts_marks_validity_and_keeps_to_the_orders(capsys):
    """Review 2026-11-28 P16: how many of how many are shown, each mutant valid or discarded
    by the invariant, and --orders 2 shows intersectional mutants only."""
    import pytest
    from cli_inputs import real_parser

    parser = real_parser()
    if parser is None:
        pytest.skip("spaCy's en_core_web_sm is not installed")
    text = "The British man thanked his mother."
    assert cli.main(["mutate", text, "--orders", "2", "--limit", "5", "--parser", parser]) == 0
    captured = capsys.readouterr()
    heads = captured.out.splitlines()[::2]
    assert len(heads) == 5 and all(h.startswith("[inter-") for h in heads), heads
    marks = [h.rsplit("  [", 1)[1] for h in heads]
    assert all(m == "valid]" or m.startswith("discarded: ") for m in marks), marks
    valid = sum(m == "valid]" for m in marks)
    note = captured.err.strip().splitlines()[-1]
    assert note.startswith("hinter: showed 5 of ") and "(--limit 5; --limit " in note, note
    assert note.endswith(f"; {valid} of them valid (the invariant keeps them)"), note
    # "hers" for the determiner "his" changes the parse: the invariant discards that mutant
    assert cli.main(["mutate", text, "--orders", "1", "--attributes", "gender", "--limit", "99",
                     "--parser", parser]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    hers = [lines[i] for i in range(1, len(lines), 2) if " hers mother" in lines[i]]
    assert hers
    for line in hers:
        assert "[discarded: " in lines[lines.index(line) - 1]
