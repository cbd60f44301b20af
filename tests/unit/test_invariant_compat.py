"""The artifact-compatibility switches of the invariant (hinter.invariant.compat), each on a
hand-made text, and the default (every switch off) unchanged.

A recording parser stands in for spaCy: it returns one tag per whitespace word (so a one-word
swap passes Alg. 4 and a changed word count is within its tolerance) and remembers what it was
asked to parse, which is what the switches change.
"""

from __future__ import annotations

import pytest
import spacy

from hinter.edits import Edit, apply_edits
from hinter.errors import ConfigError
from hinter.invariant import IncrementalChecker, Parse, SentenceSplitter, Verdict
from hinter.invariant.compat import (
    Compatibility,
    mutant_window_end,
    rewrite_markup,
    workflow_compatibility,
)

OK = Verdict(True, "ok", None)


class Recorder:
    """Parses each text as one ``W`` tag and ``dep`` per word; records the texts."""

    def __init__(self):
        self.seen: list[str] = []

    def parse(self, texts):
        self.seen += texts
        return [Parse(("W",) * len(t.split()), ("dep",) * len(t.split())) for t in texts]


@pytest.fixture(scope="module")
def splitter():
    return SentenceSplitter(spacy.blank("en").tokenizer)


def check(splitter, text, edits, compat=None, cap=None, window_ends=None):
    parser = Recorder()
    checker = IncrementalChecker(splitter, parser, None, cap, compat=compat)
    verdict = checker.check([("d", text, edits)], window_ends)[0]
    return verdict, parser.seen


def swap(text: str, old: str, new: str) -> list[Edit]:
    start = text.index(old)
    return [Edit(start, start + len(old), new)]


def test_lowercase_capitalize_changes_what_the_parser_reads(splitter):
    text = "I met John in Paris. The man was kind."
    edits = swap(text, "man", "woman")
    _, plain = check(splitter, text, edits)
    assert plain == ["The man was kind.", "The woman was kind."]
    text2 = "I met John. The man met Anna in Paris."
    verdict, seen = check(
        splitter, text2, swap(text2, "man", "woman"), Compatibility(lowercase_capitalize=True)
    )
    assert verdict == OK
    # lower-cased before splitting, then str.capitalize(): names lose their capitals
    assert seen == ["The man met anna in paris.", "The woman met anna in paris."]


def test_mutant_char_cap_tests_the_mutant_side_only(splitter):
    filler = "word " * 96 + "ab "  # 483 characters
    text = f"The man said {filler}ok."  # 501 characters with "woman", 499 with "man"
    edits = swap(text, "man", "woman")
    mutant = apply_edits(text, edits)
    assert len(text) == 499 and len(mutant) == 501
    compat = Compatibility(mutant_char_cap=500)
    assert check(splitter, text, edits, compat)[0] == Verdict(False, "too_long", 0)
    assert check(splitter, text, edits)[0] == OK  # the faithful check has no cap
    # the reverse swap: a long original and a short mutant pass the artifact's cap ...
    back = swap(mutant, "woman", "man")
    assert check(splitter, mutant, back, compat)[0] == OK
    # ... but not hinter's both-sides max_sentence_chars
    assert check(splitter, mutant, back, cap=500)[0] == Verdict(False, "too_long", 0)


def test_cap_on_every_sentence_reaches_unchanged_ones(splitter):
    long = "The film " + "was very long " * 40 + "indeed."
    text = f"The man sat. {long}"
    edits = swap(text, "man", "woman")
    assert len(long) > 500
    assert check(splitter, text, edits, Compatibility(mutant_char_cap=500))[0] == OK
    every = Compatibility(mutant_char_cap=500, cap_unchanged_sentences=True)
    assert check(splitter, text, edits, every)[0] == Verdict(False, "too_long", 1)


def test_artifact_markup_rewrites_breaks_semicolons_and_newlines(splitter):
    assert rewrite_markup("a<br />b<BR/>c<br>d;e\nf") == "a b c d.e.f"
    text = "The man left; the dog stayed<br /><br />It rained."
    edits = swap(text, "man", "woman")
    plain, _ = check(splitter, text, edits)
    assert plain == OK
    verdict, seen = check(splitter, text, edits, Compatibility(artifact_markup=True))
    assert verdict == OK
    # ';' ends a sentence now, and the markup is gone from what is parsed
    assert seen == ["The man left.", "The woman left."]


def test_truncated_mutant_against_the_full_original_fails_the_count(splitter):
    text = "The man sat. The dog ran. The cat slept."
    edits = swap(text, "man", "woman")
    window = {"d": text.index(" The dog")}
    compat = Compatibility(truncated_vs_full=True)
    assert check(splitter, text, edits, window_ends=window)[0] == OK
    assert check(splitter, text, edits, compat, window_ends=window)[0] == Verdict(
        False, "sentence_count", None
    )
    # a document that fits its window is compared whole, as before
    whole = {"d": len(text)}
    assert check(splitter, text, edits, compat, window_ends=whole)[0] == OK
    assert mutant_window_end(12, edits) == 14


def test_every_switch_off_is_the_faithful_check(splitter):
    text = "The man sat. The black dog ran; it rained.<br />Fine."
    items = [swap(text, "man", "woman"), swap(text, "black", "white")]
    assert not Compatibility().active and Compatibility.from_config(None) == Compatibility()
    for edits in items:
        faithful, seen = check(splitter, text, edits)
        off, seen_off = check(splitter, text, edits, Compatibility())
        assert (faithful, seen) == (off, seen_off)


def test_config_errors_are_one_line():
    with pytest.raises(ConfigError, match=r"invariant\.compatibility\.typo"):
        Compatibility.from_config({"typo": True})
    with pytest.raises(ConfigError, match=r"mutant_char_cap"):
        Compatibility.from_config({"mutant_char_cap": 0})
    with pytest.raises(ConfigError, match=r"truncated_vs_full.*reconciliation"):
        workflow_compatibility({"compatibility": {"truncated_vs_full": True}})
    assert workflow_compatibility({}) == Compatibility()
