"""The research questions' tables and figures, one module per RQ, on shared parts.

Shared parts:

- :mod:`hinter.rq.outputs` — the registry: every output's file name, kind and report entry
  (the Snakemake rules and the report are built from it);
- :mod:`hinter.rq.outcomes` — which outcome files, read one (model, dataset) at a time into
  pooled counts (:class:`~hinter.rq.outcomes.Collected`);
- :mod:`hinter.rq.validity` — the invariant's validity shards as per-document counts (RQ3);
- :mod:`hinter.plan` (outside the package) — which (model, dataset) runs and files RQ5 and RQ6
  cover, from the config alone (``plan.higher_order_runs``, ``plan.variant_runs``,
  :mod:`hinter.plan.targets`);
- :mod:`hinter.rq.ordering` — row order (configured models and datasets, totals last);
- :mod:`hinter.rq.intervals` — bootstrap intervals, comparisons and the one cell formatter of
  every RQ table;
- :mod:`hinter.rq.scores` — grammar scores of groups of texts and their differences (RQ2, RQ3.3);
- :mod:`hinter.rq.examples` — hidden-bias examples (paper Tables 1 and 4);
- :mod:`hinter.rq.figures` — the CSV reader and the writing loop of an RQ's figures;
- :mod:`hinter.rq.captions` — what the report's caption templates are fed;
- :mod:`hinter.rq.paper` — the paper's numbers, quoted by the report's captions;
- :mod:`hinter.rq.comparison` — the paper's numbers beside this run's (``paper/``);
- :mod:`hinter.render` (outside the package: other stages use it too) — the table writer (CSV,
  Markdown, HTML).

One module per research question for its tables (rule ``rq<N>_tables``), and one in
:mod:`hinter.plots` for its figures, drawn from the tables' CSV files (rule ``rq<N>_figures``):

- :mod:`hinter.rq.rq1` — RQ1: Table 3, the data of Figs. 4–6, the truth table, examples, and
  :mod:`hinter.rq.groups` — group-level bias (the measures in :mod:`hinter.rq.group_bias`);
- :mod:`hinter.rq.rq2` — RQ2: grammatical validity (Fig. 8a);
- :mod:`hinter.rq.rq3` — RQ3: the dependency invariant (Figs. 7, 8b and 8c);
- :mod:`hinter.rq.rq4` — RQ4: atomic vs intersectional (Figs. 9 and 10);
- :mod:`hinter.rq.rq5` — RQ5: scalability to three attributes, Table 5;
- :mod:`hinter.rq.rq6` — RQ6: sensitivity (Figs. 11 and 12).

Adding an output to an RQ: register it in ``outputs`` (one line), add its builder to the RQ
module's ``build_tables`` (counts in, a :class:`~hinter.render.Table` out) or to
``hinter.plots.rq<N>.build_figures`` (tables in, a ``Figure`` out), and write its caption
``workflow/report/rq<N>/<name>.rst``. The rule's outputs and the report entry follow.
"""
