"""The paper's worked examples (002 Fig. 1, Fig. 3, Tables 1, 4 and 6) through the whole chain:
the shipped dictionary, the mutation engine and the dependency invariant with spaCy's real
en_core_web_sm 3.8.0. Texts are the tables' excerpts completed into sentences.

What is asserted is what the real parser says, which is not always what the paper printed:
its examples passed the authors' parser (AllenNLP, which never loaded in their published code).
"""

from __future__ import annotations

import inv_corpus as corpus
import pytest

from hinter.dictionary.pairs import compile_dictionary
from hinter.edits import Edit, apply_edits
from hinter.invariant import (
    IncrementalChecker,
    SentenceSplitter,
    SpacyParser,
    Verdict,
    inv_check,
    parse_of,
)
from hinter.mutation import SuiteMutator
from hinter.mutation.generate import pairs_from_table

OK = Verdict(True, "ok", None)


@pytest.fixture(scope="module")
def nlp():
    return corpus.real_pipeline()


@pytest.fixture(scope="module")
def pairs(repo):
    table = compile_dictionary(["race", "gender", "body"], repo / "resources/dictionary").table
    return pairs_from_table(table, ["race", "gender", "body"])


def mutants(pairs, attributes, text):
    """{mutant text: (attributes, edits)} of one suite, from the shipped dictionary."""
    out = {}
    for m in SuiteMutator(pairs, attributes).mutants("d", text):
        out[apply_edits(text, m.edits)] = m.edits
    return out


def verdict(nlp, text, edits) -> Verdict:
    """The workflow's (incremental) verdict, checked against paper Alg. 3 run literally."""
    splitter = SentenceSplitter.for_pipeline(nlp)
    ours = IncrementalChecker(splitter, SpacyParser(nlp, "x"), None, 500).check(
        [("d", text, edits)]
    )[0]
    mutant = apply_edits(text, edits)
    assert ours == inv_check(text, mutant, splitter.split, SpacyParser(nlp, "x").parse, 500)
    return ours


def check_example(nlp, pairs, text, steps):
    """``steps``: (attributes, {old: new}, expected verdict) — the mutant of the suite whose
    text is ``text`` with the first ``old`` replaced by its ``new``."""
    for attributes, changes, expected in steps:
        wanted = text
        for old, new in changes.items():
            wanted = wanted.replace(old, new, 1)
        found = mutants(pairs, attributes, text)
        assert wanted in found, (attributes, wanted)
        assert verdict(nlp, text, found[wanted]) == expected, wanted


def test_figure_1_black_man(nlp, pairs):
    text = "The black man gave a wonderful performance in this film."
    check_example(
        nlp,
        pairs,
        text,
        [
            (["race"], {"black": "white"}, OK),
            (["gender"], {"man": "woman"}, OK),
            (["race", "gender"], {"black man": "white woman"}, OK),
        ],
    )


def test_table_1_review_19375(nlp, pairs):
    text = (
        "There is a special heaven reserved for people who make the world laugh. "
        "British moviegoers will recognise the fat one from Cannon and Ball."
    )
    check_example(
        nlp,
        pairs,
        text,
        [
            (["race"], {"British": "Pakistani"}, OK),
            (["body"], {"for people": "for trans women"}, OK),
            (["race", "body"], {"British": "Pakistani", "for people": "for trans women"}, OK),
        ],
    )


def test_table_1_review_44660(nlp, pairs):
    text = (
        "The Aristocats is a hilarious film that not many people have seen. "
        "I think that The Aristocats is so funny and cute."
    )
    check_example(
        nlp,
        pairs,
        text,
        [
            (["body"], {"many people": "many non-masculine people"}, OK),
            (["gender"], {"cute": "manly"}, OK),
            (["body", "gender"], {"many people": "many non-masculine people", "cute": "manly"}, OK),
        ],
    )


def test_table_4_eurlex_173(nlp, pairs):
    text = (
        "The Directive concerns the normal behaviour of children. "
        "The Spanish authorities have raised a formal objection."
    )
    illness = {"children": "children with mental illness"}
    check_example(
        nlp,
        pairs,
        text,
        [
            (["body"], illness, OK),
            (["race"], {"Spanish": "Jamaican"}, OK),
            (["body", "race"], {**illness, "Spanish": "Jamaican"}, OK),
        ],
    )


def test_table_6_three_attributes(nlp, pairs):
    """The body and gender parents pass; German -> Syrian does not: en_core_web_sm then tags the
    name before it as a proper noun (Carver/NN -> Carver/NNP), a word the mutation did not
    touch, so the race parent and the 3-way mutant are discarded (reason pos, sentence 1)."""
    text = "People who have enjoyed this will like it. Carver is German. He is not really staying."
    syrian = Verdict(False, "pos", 1)
    check_example(
        nlp,
        pairs,
        text,
        [
            (["body"], {"People": "People with mental disorder"}, OK),
            (["gender"], {"He is": "She is"}, OK),
            (["race"], {"German": "Syrian"}, syrian),
            (
                ["body", "race", "gender"],
                {"People": "People with mental disorder", "German": "Syrian", "He is": "She is"},
                syrian,
            ),
        ],
    )
    tags = [parse_of(nlp(s)).tags for s in ("Carver is German.", "Carver is Syrian.")]
    assert tags == [("NN", "VBZ", "JJ", "."), ("NNP", "VBZ", "JJ", ".")]


def test_figure_3_his_to_him_fails_and_his_to_her_passes(nlp, pairs):
    text = "He loved his mother and he thanked her."
    start = text.index("his")
    him = [Edit(start, start + 3, "him")]  # Fig. 3(c): PRP$ -> PRP
    assert verdict(nlp, text, him) == Verdict(False, "pos", 0)
    check_example(nlp, pairs, text, [(["gender"], {"his": "her"}, OK)])


def test_man_to_disabled_man_can_pass(nlp, pairs):
    """One inserted token: tags and labels differ in length by one, within the tolerance."""
    text = "The man thanked the nurse."
    check_example(nlp, pairs, text, [(["body"], {"man": "disabled man"}, OK)])
    before, after = (parse_of(nlp(s)) for s in (text, "The disabled man thanked the nurse."))
    assert len(after.tags) == len(before.tags) + 1 and after.tags != before.tags
