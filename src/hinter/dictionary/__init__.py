"""The bias dictionary: directed word pairs per sensitive attribute.

- :mod:`hinter.dictionary.terms` — term normalisation, the case policy, whole-word checks;
- :mod:`hinter.dictionary.curated` — the shipped tables in ``resources/dictionary/`` (and how they
  were built from the authors' published lists);
- :mod:`hinter.dictionary.custom` — attributes declared in ``dictionary.custom``;
- :mod:`hinter.dictionary.pairs` — ``pairs.parquet`` (``as_published`` / ``complete``, stable
  ``pair_id``) and the review notes;
- :mod:`hinter.dictionary.coverage` — SBIC support of the curated terms, curation candidates.

Submodules are imported explicitly: the Snakefile imports ``custom`` at start-up (keep it light).
"""
