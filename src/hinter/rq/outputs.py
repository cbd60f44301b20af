"""Every output of every research question: file name, kind, report placement (one registry).

``workflow/rules/rq.smk`` builds each RQ rule's outputs and report entries from here, the RQ
modules write exactly these files (their tests check), the captions are
``workflow/report/rq<N>/<name>.rst``, and the report test looks for every entry. So adding an
output to an RQ is: one :class:`Output` line below, one builder in the RQ's module, one caption
(a table's with the ``*Definitions.*`` paragraph its Markdown quotes: :mod:`hinter.rq.definitions`).

Outputs of ``rq`` :data:`~hinter.layout.PAPER` (0) span every RQ: the paper comparison
(:mod:`hinter.rq.comparison`), in ``results/<run>/paper/``, the report category "Paper" and
captions ``workflow/report/paper/<name>.rst``.

Pure data (no pandas, no matplotlib): the Snakefile imports it at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

from hinter.layout import PAPER

TABLE = "table"
FIGURE = "figure"
# Every table is written as data (CSV), as a Markdown document (title, caption, table) and as the
# same document in HTML (what the report shows); every figure as PDF (print) and PNG (report).
EXTENSIONS = {TABLE: ("csv", "md", "html"), FIGURE: ("pdf", "png")}
SHOWN = {TABLE: "html", FIGURE: "png"}


@dataclass(frozen=True)
class Output:
    """One table or figure of a research question, ``results/<run>/rq<N>/<name>.<ext>``."""

    rq: int
    name: str  # file stem
    kind: str  # TABLE or FIGURE
    label: str  # the report's one-line label
    subcategory: str  # the report's grouping inside the RQ's category
    paper: str = ""  # its counterpart in the paper (``002``), e.g. "Table 3", "Fig. 4"
    sources: tuple[str, ...] = ()  # a figure's tables (drawn from their CSV files)
    # Which rules write it: "" = the RQ's own ``rq<N>_tables``/``rq<N>_figures``; a name =
    # a separate rule ``rq<N>_<part>`` that writes the part's tables and figures (RQ1's group
    # bias: ``rq1_groups``).
    part: str = ""

    def __post_init__(self) -> None:
        if self.kind not in EXTENSIONS:
            raise ValueError(f"{self.name}: kind must be {TABLE!r} or {FIGURE!r}")
        if self.sources and self.kind != FIGURE:
            raise ValueError(f"{self.name}: only a figure is drawn from tables")

    @property
    def extensions(self) -> tuple[str, ...]:
        return EXTENSIONS[self.kind]

    @property
    def shown(self) -> str:
        """The extension of the file registered in the HTML report."""
        return SHOWN[self.kind]

    @property
    def caption(self) -> str:
        """The caption template, relative to ``workflow/report/``."""
        return f"{'paper' if self.rq == PAPER else f'rq{self.rq}'}/{self.name}.rst"

    @property
    def category(self) -> str:
        return "Paper" if self.rq == PAPER else f"RQ{self.rq}"

    @property
    def labels(self) -> dict[str, str]:
        """Report labels: one column only (Snakemake turns a second two-valued label into a
        toggle that hides entries)."""
        paper = f" ({self.paper})" if self.paper else ""
        return {"output": f"{self.label}{paper}"}


# fmt: off
RQ1 = (
    Output(1, "table3", TABLE, "Intersectional and hidden error rates", "Error rates", "Table 3"),
    Output(1, "fig4", FIGURE, "Intersectional error rate per model", "Error rates", "Fig. 4",
           ("table3", "distinct_originals")),
    Output(1, "atomic_rates", TABLE, "Atomic error rates", "Error rates", "Fig. 5a"),
    Output(1, "fig5", FIGURE, "Atomic error rate per model", "Error rates", "Fig. 5",
           ("atomic_rates", "distinct_originals")),
    Output(1, "distinct_originals", TABLE, "Distinct bias-inducing originals", "Error rates",
           "Figs. 4b, 5b"),
    Output(1, "rates_by_suite", TABLE, "Counts and rates per suite", "Per suite"),
    Output(1, "truth_table", TABLE, "Truth table of intersectional outcomes", "Truth table"),
    Output(1, "correctness", TABLE, "Outcome shares of bias-inducing inputs", "Correctness",
           "Fig. 6 data"),
    Output(1, "fig6", FIGURE, "Correctness of bias-inducing inputs", "Correctness", "Fig. 6",
           ("correctness",)),
    Output(1, "hidden_examples", TABLE, "Hidden-bias examples", "Examples", "Tables 1, 4"),
)
RQ4 = (
    Output(4, "counterparts", TABLE, "Bias-inducing mutants with and without a counterpart",
           "Mutants", "Fig. 9 data"),
    Output(4, "fig9", FIGURE, "Atomic vs intersectional bias-inducing mutants", "Mutants",
           "Fig. 9", ("counterparts",)),
    Output(4, "fig9_artifact", FIGURE,
           "Compatibility: hidden bias by the original artifact's condition", "Mutants",
           "Fig. 9a", ("counterparts",)),
    Output(4, "venn", TABLE, "Bias-inducing originals per set of suites", "Originals",
           "Fig. 10 data"),
    Output(4, "fig10", FIGURE, "Bias-inducing originals, atomic vs intersectional", "Originals",
           "Fig. 10", ("venn",)),
    Output(4, "upset", FIGURE, "Bias-inducing originals with three attributes (UpSet)",
           "Originals", "", ("venn",)),
)
RQ5 = (
    Output(5, "table5", TABLE, "Atomic, 2- and 3-intersectional bias", "Scalability", "Table 5"),
    Output(5, "table6", TABLE, "Hidden bias with three attributes: examples", "Examples",
           "Table 6"),
)
RQ6 = (
    Output(6, "variants", TABLE, "Error rates over repeated runs and prompt templates",
           "Runs and prompts", "Fig. 11 data"),
    Output(6, "fig11", FIGURE, "Error rates over repeated runs and prompt templates",
           "Runs and prompts", "Fig. 11", ("variants",)),
    Output(6, "thresholds", TABLE, "Error and hidden rates against a confidence threshold",
           "Confidence", "Fig. 12 data"),
    Output(6, "accuracy", TABLE, "Accuracy against a confidence threshold", "Confidence",
           "Fig. 12 data (c, d)"),
    Output(6, "fig12", FIGURE, "Error rates and accuracy against a confidence threshold",
           "Confidence", "Fig. 12", ("thresholds", "accuracy")),
)
# fmt: on

# fmt: off
# RQ1's group-level bias (MUTAINT Table 4, Lalor et al.), written by rule rq1_groups.
RQ1_GROUPS = (
    Output(1, "group_bias", TABLE, "Error rates per attribute class and class pair",
           "Group bias", "MUTAINT Table 4", part="groups"),
    Output(1, "fig_groups", FIGURE, "Error rates of intersectional groups (heatmap)",
           "Group bias", "", ("group_bias",), part="groups"),
)
RQ2 = (
    Output(2, "grammar_scores", TABLE, "Grammar scores of originals and valid mutants",
           "Grammar", "Fig. 8a data"),
    Output(2, "fig8a", FIGURE, "Grammar scores: originals vs valid mutants", "Grammar",
           "Fig. 8a", ("grammar_scores",)),
)
RQ3 = (
    Output(3, "validity", TABLE, "Valid and discarded mutants", "Valid vs discarded",
           "Fig. 7 data"),
    Output(3, "fig7", FIGURE, "Valid vs discarded mutants per dataset", "Valid vs discarded",
           "Fig. 7", ("validity",)),
    Output(3, "positives", TABLE, "True and false positives", "True vs false positives",
           "Fig. 8b data"),
    Output(3, "fig8b", FIGURE, "True vs false positives", "True vs false positives",
           "Fig. 8b", ("positives",)),
    Output(3, "grammar_validity", TABLE, "Grammar scores of valid and discarded mutants",
           "Grammar", "Fig. 8c data"),
    Output(3, "fig8c", FIGURE, "Grammar scores: valid vs discarded mutants", "Grammar",
           "Fig. 8c", ("grammar_validity",)),
)
# fmt: on

# The paper's numbers beside this run's (hinter.rq.comparison), from the RQ tables.
COMPARISON = (
    Output(PAPER, "paper_vs_run", TABLE, "Paper vs this run", "Headline numbers",
           "Table 3, headline numbers"),
)  # fmt: skip

# The RQ tables (CSV) the comparison reads, by RQ.
COMPARISON_SOURCES = {
    1: ("table3", "atomic_rates", "distinct_originals", "rates_by_suite"),
    3: ("validity", "positives", "grammar_validity"),
    5: ("table5",),
}

# RQ number -> its outputs, in report order. RQ2-RQ6 add theirs here; PAPER: the comparison.
OUTPUTS: dict[int, tuple[Output, ...]] = {
    1: RQ1 + RQ1_GROUPS, 2: RQ2, 3: RQ3, 4: RQ4, 5: RQ5, 6: RQ6, PAPER: COMPARISON,
}  # fmt: skip


def outputs(rq: int, kind: str | None = None, part: str | None = "") -> tuple[Output, ...]:
    """The outputs of one research question (of one kind), in report order: those of the
    RQ's own rules (``part=""``), of one separately written part, or all (``part=None``)."""
    if rq not in OUTPUTS:
        raise ValueError(f"RQ{rq} has no registered outputs")
    return tuple(
        o
        for o in OUTPUTS[rq]
        if (kind is None or o.kind == kind) and (part is None or o.part == part)
    )


def names(rq: int, kind: str | None = None, part: str | None = "") -> tuple[str, ...]:
    return tuple(o.name for o in outputs(rq, kind, part))


def figure_sources(rq: int, part: str | None = "") -> tuple[str, ...]:
    """The tables an RQ's figures (of one part) are drawn from (sorted, each once)."""
    return tuple(sorted({t for o in outputs(rq, FIGURE, part) for t in o.sources}))


def get(rq: int, name: str) -> Output:
    for o in outputs(rq, part=None):
        if o.name == name:
            return o
    raise KeyError(f"RQ{rq} has no output {name!r}")
