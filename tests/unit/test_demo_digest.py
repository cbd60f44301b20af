"""The demo corpora are pinned: a refactor of ``hinter.demo`` must not change one byte of them.

The digests are of each dataset's rows and meta under the settings of config/demo.yaml
(``demo_digest.DEMO``), so any change to the grammar's frames, the order of a word list or of
the lexicon, or the RNG draws shows here. A change that alters the corpora on purpose updates
them (and reruns the demo): print the new values with ``python tests/support/demo_digest.py``.
"""

from __future__ import annotations

import pytest
from demo_digest import DATASETS, corpus_digest

PINNED = {
    "imdb": "6e5d535aa9db5b4c84ec289e064a5666d821c45b0742f1af30112ec3d8b26f38",
    "ecthr_a": "2f72d026bff073e15dee148d9f9c4fd1dcd0a065504a5ba40e02ef2b8e3836a1",
    "scotus": "6d68808a904c55b68b771c15ddfbc4aee50134f60d659bbb02e9ef37400253b9",
    "eurlex": "3c324e9d0583d89f2c94bf918f03fcf42023316de5f8d90ad91190654e0258fc",
    "ledgar": "174ca2d77500ae5a160523bcd47cef8ac6792ef1819d75ad3f05f6b742ee22e3",
}


def test_every_demo_dataset_is_pinned():
    assert sorted(PINNED) == sorted(DATASETS)


@pytest.mark.parametrize("dataset", DATASETS)
def test_demo_corpus_is_byte_identical_to_the_pinned_one(dataset):
    assert corpus_digest(dataset) == PINNED[dataset], (
        f"the {dataset} demo corpus changed: if on purpose, pin the value printed by "
        "`python tests/support/demo_digest.py` (and say so in the commit)"
    )
