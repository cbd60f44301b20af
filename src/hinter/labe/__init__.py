"""LABE (004): language-agency bias in generated text.

An agency classifier fine-tuned on LAC labels each sentence of a generated text agentic or
communal; a text's ratio gap is (agentic - communal) / sentences; a demographic group's agency is
the mean ratio gap of its texts; bias along a dimension is the sample variance of the group
means (docs/labe.md, docs/design.md §12). Modules: ``metric`` (splitting, per-text
scores, group means, variances, bootstrap), ``data`` (LAC and the released files), ``paper``
(004's numbers), ``table1`` (the paper-vs-run table), ``generate`` (templates, mutants, LLM
generation with the response cache), ``mutants`` (atomic / intersectional / hidden bias),
``classify``, ``score``, ``stages`` (one function per rule), ``report`` (generate-test's
section); the figures are :mod:`hinter.plots.labe`.
"""
