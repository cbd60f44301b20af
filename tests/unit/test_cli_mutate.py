"""`hinter mutate`: a text's mutants as a reader sees them (canonical forms, edits applied)."""

from __future__ import annotations

from hinter import cli


def test_mutate_shows_the_source_as_written_and_each_mutant(capsys):
    text = "The British man thanked his mother."
    argv = ["mutate", text, "--attributes", "race", "--orders", "1", "--limit", "2"]
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
