"""Figures: one style for the whole project (:mod:`hinter.plots.style`), pure chart functions
(tables in, ``Figure`` out; :mod:`hinter.plots.charts`) and a byte-stable writer
(:func:`hinter.plots.writer.save_figure`). Headless: figures are built on the Agg canvas and
never touch pyplot's global state."""
