"""The research questions' tables and figures, one module per RQ, on shared parts.

- :mod:`hinter.rq.outputs` — the registry: every output's file name, kind and report entry
  (the Snakemake rules and the report are built from it);
- :mod:`hinter.rq.outcomes` — which outcome files, read one (model, dataset) at a time into
  pooled counts (:class:`~hinter.rq.outcomes.Collected`);
- :mod:`hinter.rq.ordering` — row order (configured models and datasets, totals last);
- :mod:`hinter.rq.render` — the table writer (CSV, Markdown, HTML);
- :mod:`hinter.rq.examples` — hidden-bias examples (paper Tables 1 and 4);
- :mod:`hinter.rq.intervals` — bootstrap intervals and significance for any RQ table's rates;
- :mod:`hinter.rq.paper` — the paper's numbers, quoted by the report's captions;
- :mod:`hinter.rq.comparison` — the paper's numbers beside this run's (``paper/``);
- :mod:`hinter.rq.rq1` — RQ1: Table 3, Figs. 4–6, the truth table, examples.

Adding an output to an RQ: register it in ``outputs`` (one line), add its builder to the RQ
module's ``build_tables``/``build_figures`` (a function from counts or tables to a
:class:`~hinter.rq.render.Table` or a ``Figure``), and write its caption
``workflow/report/rq<N>/<name>.rst``. The rule's outputs and the report entry follow.
"""
