"""Figures: one style for the whole project (:mod:`hinter.plots.style`), pure chart functions
(tables in, ``Figure`` out; :mod:`hinter.plots.charts`, :mod:`hinter.plots.grouped`,
:mod:`hinter.plots.heatmap`), a byte-stable writer (:func:`hinter.plots.writer.save_figure`), and
one module per RQ (``rq1``–``rq4``, ``rq6``, ``groups``) that draws its figures from the CSV files
of its tables (rule ``rq<N>_figures``). Headless: figures are built on the Agg canvas and
never touch pyplot's global state."""
