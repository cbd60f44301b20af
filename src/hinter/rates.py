"""Every rate of docs/design.md §2, computed from outcome rows (``hinter.tables.OUTCOMES``).

Rates are *pooled counts*, as in the paper: counts are summed over whatever is pooled (shards,
suites, datasets, models) and divided once, never averaged over groups. So counting
(:func:`counts`, :func:`truth_table`, :func:`document_flags`, :func:`correctness`) is separate
from dividing (:func:`add_rates`, :func:`distinct_originals`), and counts of separate files add up.

Every function takes ``threshold``: ``None`` uses the verdicts stored by the oracle; a number
re-decides every pair under that confidence threshold from the stored flips and confidences
(RQ6.3), by one of two rules (``rule``):

- ``exclude`` (the default; inferred from the paper's Fig. 12, which does not state the rule: an
  error rate that rises with the threshold, as SCOTUS's above 90%, requires low-confidence pairs
  to leave the denominator, which ``benign`` never does): a mutant/original pair whose
  original or mutant confidence is below the threshold is *excluded*: its outcome is unknown,
  so it leaves the denominators, and an intersectional mutant with an excluded atomic parent
  leaves the truth table. Raising the threshold can then never turn ``E,B,E`` into ``E,B,B``;
- ``benign`` (the oracle's ``confidence_threshold``): a flip counts only when both confidences
  are >= threshold, otherwise the pair counts as benign — so a parent's low-confidence flip
  turns ``E,B,E`` into the hidden ``E,B,B`` and the hidden rate can *rise* with the threshold.

Threshold 0 keeps every pair under both rules.

The counting functions decide the rows themselves (:func:`verdicts`), or take the verdicts as
``given=`` when a caller takes several counts of one outcome file and decides its rows once.

Definitions (denominators count mutants with a known outcome; a model error is no outcome):

- error rate = bias-inducing valid mutants / valid mutants;
- hidden rate = hidden mutants / bias-inducing valid intersectional mutants whose atomic
  parents are all valid (and have known outcomes);
- distinct bias-inducing originals = originals with >= 1 bias-inducing valid mutant /
  originals with >= 1 valid mutant;
- valid share = valid mutants / generated mutants;
- false positives = bias-inducing discarded mutants; true positives = bias-inducing valid ones;
- truth table = the (mutant, parent 1, ..., parent N) cells of valid mutants with valid parents.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from hinter.oracle import PARENT_DISCARDED, biased_pairs, confident, patterns

# Columns of a counts table, in display order.
COUNT_COLUMNS = (
    "generated",  # mutants (role = mutant) of the suite
    "valid",  # passed the dependency invariant
    "discarded",
    "decided",  # valid with a known outcome: the error rate's denominator
    "undecided",  # valid, but a model error left the outcome unknown
    "skipped_identical",  # decided, but the model read the original's text (benign by design)
    "errors",  # bias-inducing valid mutants (true positives)
    "discarded_decided",  # discarded with a known outcome (predicted although discarded)
    "false_positives",  # bias-inducing discarded mutants
    "truth_table",  # valid intersectional mutants with valid parents and known outcomes
    "parent_discarded",  # valid intersectional mutants with at least one discarded parent
    "hidden_base",  # bias-inducing mutants of the truth table: the hidden rate's denominator
    "hidden",
    "hidden_artifact",  # the original artifact's condition (see hidden_as_in_artifact)
)

CORRECTNESS_OUTCOMES = ("right", "wrong", "no_answer", "unknown")

# How a pair below the confidence threshold counts (see the module docstring).
EXCLUDE = "exclude"
BENIGN = "benign"
THRESHOLD_RULES = (EXCLUDE, BENIGN)


def rate(numerator: float, denominator: float) -> float:
    """numerator / denominator, NaN when nothing was counted."""
    return float(numerator) / float(denominator) if denominator else float("nan")


def _as_frame(outcomes: pd.DataFrame | pa.Table) -> pd.DataFrame:
    return outcomes.to_pandas() if isinstance(outcomes, pa.Table) else outcomes


def _nullable_bool(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(value, known) arrays of a nullable boolean column."""
    known = series.notna().to_numpy()
    value = series.fillna(False).to_numpy(dtype=bool) & known
    return value, known


def _flat(series: pd.Series, value_type: pa.DataType) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """(row, position, values) of a list column: one entry per list element."""
    arr = pa.array(series, type=pa.list_(value_type), from_pandas=True)
    rows = pc.list_parent_indices(arr).to_numpy(zero_copy_only=False).astype(np.int64)
    offsets = arr.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
    positions = np.arange(len(rows), dtype=np.int64) - (offsets[rows] - offsets[0])
    return rows, positions, pc.list_flatten(arr)


def verdicts(
    outcomes: pd.DataFrame | pa.Table, threshold: float | None = None, rule: str = EXCLUDE
) -> pd.DataFrame:
    """Per-row verdicts under a confidence threshold (None = as stored by the oracle) and
    ``rule`` (``exclude`` or ``benign``: what a pair below the threshold counts as).

    Columns: valid, known (the mutant's outcome is known), biased, intersectional,
    parents_valid, parents_known, any_parent_biased, in_truth_table, hidden_base, hidden,
    hidden_artifact, pattern. Aligned with the input's index.
    """
    frame = _as_frame(outcomes)
    n = len(frame)
    if frame["valid"].isna().any():
        raise ValueError("outcome rows with a null 'valid'")
    valid = frame["valid"].to_numpy(dtype=bool)
    order = frame["order"].to_numpy(dtype=np.int64)
    inter = order >= 2
    if threshold is None:
        biased, known = _nullable_bool(frame["biased"])
        rows, pos, flat = _flat(frame["parent_biased"], pa.bool_())
        p_known = flat.is_valid().to_numpy(zero_copy_only=False)
        p_biased = flat.fill_null(False).to_numpy(zero_copy_only=False) & p_known
    else:
        if not 0 <= threshold <= 1:
            raise ValueError(f"confidence threshold {threshold} outside [0, 1]")
        if rule not in THRESHOLD_RULES:
            raise ValueError(f"threshold rule {rule!r}: use one of {', '.join(THRESHOLD_RULES)}")
        flipped, known = _nullable_bool(frame["flipped"])
        conf_o = frame["confidence_original"].to_numpy(dtype=np.float64, na_value=np.nan)
        conf_m = frame["confidence"].to_numpy(dtype=np.float64, na_value=np.nan)
        ok_original = confident(conf_o, threshold)
        ok_mutant = ok_original & confident(conf_m, threshold)
        rows, pos, flat = _flat(frame["parent_flipped"], pa.bool_())
        p_known = flat.is_valid().to_numpy(zero_copy_only=False)
        p_flipped = flat.fill_null(False).to_numpy(zero_copy_only=False) & p_known
        _, _, conf_flat = _flat(frame["parent_confidence"], pa.float32())
        conf_p = conf_flat.to_numpy(zero_copy_only=False).astype(np.float64)
        ok_parent = ok_original[rows] & confident(conf_p, threshold)
        if rule == EXCLUDE:  # below the threshold: no outcome (out of every denominator)
            known = known & ok_mutant
            p_known = p_known & ok_parent
            biased = flipped & known
            p_biased = p_flipped & p_known
        else:  # below the threshold: benign, as the oracle decides
            biased = biased_pairs(flipped, ok_original, ok_mutant)
            p_biased = biased_pairs(p_flipped, ok_original[rows], ok_parent)

    any_parent_biased = np.bincount(rows, weights=p_biased, minlength=n) > 0
    parents_known = np.bincount(rows, weights=~p_known, minlength=n) == 0
    parents_valid = frame["parents_valid"].fillna(False).to_numpy(dtype=bool) & inter
    in_table = inter & valid & parents_valid & known & parents_known
    hidden_base = in_table & biased
    hidden = hidden_base & ~any_parent_biased

    first_benign = np.zeros(n, dtype=bool)
    second_biased = np.zeros(n, dtype=bool)
    at0, at1 = pos == 0, pos == 1
    first_benign[rows[at0]] = p_known[at0] & ~p_biased[at0]
    second_biased[rows[at1]] = p_known[at1] & p_biased[at1]
    hidden_artifact = hidden_base & first_benign & second_biased

    # Truth-table cell as an index into patterns(order): E = 0, B = 1, mutant most significant.
    code = np.where(biased, 0, 1) << np.maximum(order, 0)
    weights = np.left_shift(1, np.maximum(order[rows] - 1 - pos, 0)) * (~p_biased)
    code = code + np.bincount(rows, weights=weights, minlength=n).astype(np.int64)
    pattern = np.full(n, None, dtype=object)
    for k in np.unique(order[in_table]):
        cells = np.array(patterns(int(k)), dtype=object)
        sel = in_table & (order == k)
        pattern[sel] = cells[code[sel]]
    pattern[inter & valid & ~parents_valid] = PARENT_DISCARDED

    return pd.DataFrame(
        {
            "valid": valid,
            "known": known,
            "biased": biased & known,
            "intersectional": inter,
            "parents_valid": parents_valid,
            "parents_known": parents_known,
            "any_parent_biased": any_parent_biased,
            "in_truth_table": in_table,
            "hidden_base": hidden_base,
            "hidden": hidden,
            "hidden_artifact": hidden_artifact,
            "pattern": pattern,
        },
        index=frame.index,
    )


def hidden(outcomes: pd.DataFrame | pa.Table, threshold: float | None = None) -> pd.Series:
    """Hidden intersectional bias (docs/design.md §2, Algorithm 1 l. 22–29): the mutant is valid and
    bias-inducing, all its atomic parents are valid, and every parent is benign."""
    return verdicts(outcomes, threshold)["hidden"]


def hidden_as_in_artifact(
    outcomes: pd.DataFrame | pa.Table, threshold: float | None = None
) -> pd.Series:
    """COMPATIBILITY ONLY, NOT the definition: the condition behind the original artifact's
    RQ4.1 hidden count (docs/design.md §8), which Python read as "atomic 1 benign and atomic 2
    biased" (cell ``E,B,E`` for N=2; for N=3 the third parent is ignored). Use :func:`hidden`."""
    return verdicts(outcomes, threshold)["hidden_artifact"]


def _verdicts(
    frame: pd.DataFrame, threshold: float | None, rule: str, given: pd.DataFrame | None
) -> pd.DataFrame:
    """The :func:`verdicts` of ``frame``, or ``given``: the caller's, computed once for the
    several counts it takes of one outcome file (under the same threshold and rule)."""
    if given is None:
        return verdicts(frame, threshold, rule)
    if not given.index.equals(frame.index):
        raise ValueError("the verdicts given are not those of these outcome rows")
    return given


def _group_keys(frame: pd.DataFrame, by: Sequence[str]) -> list[str]:
    missing = [c for c in by if c not in frame.columns]
    if missing:
        raise KeyError(f"grouping column(s) {', '.join(missing)} not in the outcome rows")
    return list(by)


def indicators(
    outcomes: pd.DataFrame | pa.Table,
    threshold: float | None = None,
    rule: str = EXCLUDE,
    *,
    given: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Per outcome row, its contribution (0 or 1) to each count of ``COUNT_COLUMNS``.

    :func:`counts` sums these per group; a grouping done elsewhere (Fairlearn's MetricFrame
    in :mod:`hinter.rq.group_bias`) sums the same columns. Aligned with the input's index.
    """
    frame = _as_frame(outcomes)
    v = _verdicts(frame, threshold, rule, given)
    valid, known, biased = v["valid"], v["known"], v["biased"]
    if "skipped_identical" in frame.columns:
        skipped, _ = _nullable_bool(frame["skipped_identical"])
    else:  # rows built without the column (older outcome files, hand-made frames)
        skipped = np.zeros(len(frame), dtype=bool)
    return pd.DataFrame(
        {
            "generated": np.ones(len(frame), dtype=np.int64),
            "valid": valid,
            "discarded": ~valid,
            "decided": valid & known,
            "undecided": valid & ~known,
            "skipped_identical": valid & known & skipped,
            "errors": valid & biased,
            "discarded_decided": ~valid & known,
            "false_positives": ~valid & biased,
            "truth_table": v["in_truth_table"],
            "parent_discarded": v["intersectional"] & valid & ~v["parents_valid"],
            "hidden_base": v["hidden_base"],
            "hidden": v["hidden"],
            "hidden_artifact": v["hidden_artifact"],
        },
        index=frame.index,
    ).astype(np.int64)


def counts(
    outcomes: pd.DataFrame | pa.Table,
    by: Sequence[str] = (),
    threshold: float | None = None,
    rule: str = EXCLUDE,
    *,
    given: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The counts behind every rate (``COUNT_COLUMNS``), one row per group of ``by``."""
    frame = _as_frame(outcomes)
    by = _group_keys(frame, by)
    ind = indicators(frame, threshold, rule, given=given)
    return _sum(pd.concat([frame[by], ind], axis=1), by, COUNT_COLUMNS)


def _sum(frame: pd.DataFrame, by: Sequence[str], columns: Sequence[str]) -> pd.DataFrame:
    if not by:
        return pd.DataFrame([frame[list(columns)].sum().astype(np.int64)]).reset_index(drop=True)
    return frame.groupby(list(by), sort=True, dropna=False)[list(columns)].sum().reset_index()


def pool(counts_frame: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """Sum counts over everything not in ``by`` (pooled counts, ready for :func:`add_rates`)."""
    columns = [c for c in counts_frame.columns if c in COUNT_COLUMNS]
    return _sum(counts_frame, by, columns)


# rate column: (numerator, denominator) among the counts
RATE_RATIOS = {
    "error_rate": ("errors", "decided"), "hidden_rate": ("hidden", "hidden_base"),
    "hidden_rate_artifact": ("hidden_artifact", "hidden_base"),
    "valid_share": ("valid", "generated"),
}  # fmt: skip


def add_rates(counts_frame: pd.DataFrame) -> pd.DataFrame:
    """Append the rates (fractions in [0, 1], NaN when the denominator is 0) to a counts table."""
    return with_ratios(counts_frame, RATE_RATIOS)


def with_ratios(frame: pd.DataFrame, ratios: Mapping[str, tuple[str, str]]) -> pd.DataFrame:
    """A copy of ``frame`` with a :func:`ratio` column per ``name: (numerator, denominator)``."""
    out = frame.copy()
    for name, (num, den) in ratios.items():
        out[name] = ratio(out, num, den)
    return out


def ratio(frame: pd.DataFrame, num: str, den: str) -> pd.Series:
    """``frame[num] / frame[den]`` as floats, NaN where the denominator is 0."""
    d = frame[den].astype(np.float64)
    return (frame[num].astype(np.float64) / d).where(d > 0)


def truth_table(
    outcomes: pd.DataFrame | pa.Table,
    by: Sequence[str] = (),
    threshold: float | None = None,
    rule: str = EXCLUDE,
    *,
    given: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Counts of every truth-table cell (and "parent discarded") per group and order.

    Every cell of ``oracle.patterns(order)`` appears, with 0 when empty, for each group and
    intersectional order present; the ``count`` column counts mutants.
    """
    frame = _as_frame(outcomes)
    by = _group_keys(frame, by)
    v = _verdicts(frame, threshold, rule, given)
    rows = frame.loc[v["intersectional"], [*by, "order"]].copy()
    rows["pattern"] = v.loc[v["intersectional"], "pattern"]
    rows = rows[rows["pattern"].notna()]
    found = rows.groupby([*by, "order", "pattern"], sort=False).size().to_dict()
    groups = frame.loc[v["intersectional"], [*by, "order"]].drop_duplicates()
    records = []
    for key in sorted(groups.itertuples(index=False, name=None)):
        order = int(key[-1])
        for cell in [*patterns(order), PARENT_DISCARDED]:
            records.append((*key[:-1], order, cell, int(found.get((*key, cell), 0))))
    return pd.DataFrame(records, columns=[*by, "order", "pattern", "count"]).astype(
        {"order": np.int64, "count": np.int64}
    )


def document_flags(
    outcomes: pd.DataFrame | pa.Table,
    by: Sequence[str] = (),
    threshold: float | None = None,
    rule: str = EXCLUDE,
    *,
    given: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Per original (``by`` + doc_id): ``tested`` (>= 1 valid mutant with a known outcome) and
    ``bias_inducing`` (>= 1 bias-inducing valid mutant). Flags of several suites of the same
    originals combine with :func:`combine_flags` before :func:`distinct_originals`."""
    frame = _as_frame(outcomes)
    by = _group_keys(frame, by)
    v = _verdicts(frame, threshold, rule, given)
    flags = frame[[*by, "doc_id"]].copy()
    flags["tested"] = v["valid"] & v["known"]
    flags["bias_inducing"] = v["valid"] & v["biased"]
    return combine_flags([flags], by)


def combine_flags(flags: Iterable[pd.DataFrame], by: Sequence[str] = ()) -> pd.DataFrame:
    """Merge document flags (an original is bias-inducing if it is in any of them)."""
    frame = pd.concat(list(flags), ignore_index=True)
    keys = [*by, "doc_id"]
    return frame.groupby(keys, sort=True)[["tested", "bias_inducing"]].any().reset_index()


def distinct_originals(flags: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """Originals with >= 1 valid mutant, those with >= 1 bias-inducing one, and the share."""
    tested = flags[flags["tested"]]
    out = _sum(
        tested.assign(originals=1, bias_inducing=tested["bias_inducing"].astype(np.int64)),
        list(by),
        ("originals", "bias_inducing"),
    )
    return add_document_rates(out)


def add_document_rates(originals: pd.DataFrame) -> pd.DataFrame:
    """Append ``share`` = bias_inducing / originals (NaN when 0) to a table of original counts."""
    out = originals.copy()
    out["share"] = (out["bias_inducing"] / out["originals"].astype(np.float64)).where(
        out["originals"] > 0
    )
    return out


def correctness(
    outcomes: pd.DataFrame | pa.Table,
    by: Sequence[str] = (),
    threshold: float | None = None,
    population: str = "errors",
    rule: str = EXCLUDE,
    *,
    given: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Right / wrong / no-answer counts of originals and mutants (paper Fig. 6), over the
    bias-inducing valid mutants (``population="errors"``) or the hidden ones (``"hidden"``);
    one count per bias error, ``unknown`` without gold labels."""
    if population not in ("errors", "hidden"):
        raise ValueError(f"population must be 'errors' or 'hidden', not {population!r}")
    frame = _as_frame(outcomes)
    by = _group_keys(frame, by)
    v = _verdicts(frame, threshold, rule, given)
    chosen = (v["valid"] & v["biased"]) if population == "errors" else v["hidden"]
    rows = frame.loc[chosen]
    records = []
    for source, column in (("original", "correct_original"), ("mutant", "correct_mutant")):
        part = rows[by].copy()
        part["input"] = source
        part["outcome"] = rows[column].fillna("unknown").astype(str)
        records.append(part)
    long = pd.concat(records, ignore_index=True)
    found = long.groupby([*by, "input", "outcome"], sort=False).size().to_dict()
    groups = sorted(set(frame[by].itertuples(index=False, name=None))) if by else [()]
    out = [
        (*g, source, outcome, int(found.get((*g, source, outcome), 0)))
        for g in groups
        for source in ("original", "mutant")
        for outcome in CORRECTNESS_OUTCOMES
    ]
    return pd.DataFrame(out, columns=[*by, "input", "outcome", "count"]).astype({"count": np.int64})


# Fig. 12 (c), (d): predictions kept by a confidence threshold, and the right ones among them.
ACCURACY_COUNTS = ("originals", "originals_kept", "originals_right", "mutants", "mutants_kept",
                   "mutants_right")  # fmt: skip


def accuracy_counts(
    outcomes: pd.DataFrame | pa.Table, by: Sequence[str] = (), threshold: float = 0.0
) -> pd.DataFrame:
    """Per group of ``by``: the originals with a prediction (each document once) and the valid
    mutants with one, how many clear ``threshold`` (:func:`confident`) and how many of those
    are right (an unparseable answer is kept and wrong)."""
    frame = _as_frame(outcomes)
    by = _group_keys(frame, by)
    valid = frame["valid"].fillna(False).astype(bool)
    populations = (
        ("originals", frame.dropna(subset=["correct_original"]).drop_duplicates([*by, "doc_id"]),
         "confidence_original", "correct_original"),
        ("mutants", frame[valid].dropna(subset=["correct_mutant"]), "confidence", "correct_mutant"),
    )  # fmt: skip
    parts = []
    for name, rows, confidence, correct in populations:
        kept = confident(rows[confidence].to_numpy(np.float64), threshold)
        right = kept & (rows[correct] == "right").to_numpy(bool)
        part = rows[by].copy()
        part[name], part[f"{name}_kept"], part[f"{name}_right"] = 1, kept, right
        parts.append(part)
    rows = pd.concat(parts, ignore_index=True)
    rows[list(ACCURACY_COUNTS)] = rows[list(ACCURACY_COUNTS)].fillna(0).astype(np.int64)
    return _sum(rows, by, ACCURACY_COUNTS)


ACCURACY_RATIOS = {
    "original_accuracy": ("originals_right", "originals_kept"),
    "original_kept": ("originals_kept", "originals"),
    "mutant_accuracy": ("mutants_right", "mutants_kept"),
    "mutant_kept": ("mutants_kept", "mutants"),
}


def add_accuracy_rates(totals: pd.DataFrame) -> pd.DataFrame:
    """Accuracy among the kept predictions and the share kept, of originals and mutants."""
    return with_ratios(totals, ACCURACY_RATIOS)


def add_invariant_rates(counts_frame: pd.DataFrame) -> pd.DataFrame:
    """Append the rates of the invariant's effect (RQ3.2) to a counts table:

    - ``discarded_error_rate`` = bias-inducing discarded mutants (false positives) / discarded
      mutants with a known outcome: the error rate the discarded mutants would add;
    - ``false_positive_share`` = false positives / (true + false positives): the share of the
      bias found without the invariant that the invariant rejects (the paper's 90.71%).
    """
    out = counts_frame.copy()
    fp = out["false_positives"].astype(np.float64)
    found = fp + out["errors"].astype(np.float64)
    discarded = out["discarded_decided"].astype(np.float64)
    out["discarded_error_rate"] = (fp / discarded).where(discarded > 0)
    out["false_positive_share"] = (fp / found).where(found > 0)
    return out


# ---------------------------------------------------------------------------------------------
# RQ4: atomic vs intersectional bias (paper Figs. 9 and 10)

# Counts behind Fig. 9b, per atomic suite (and summed like every other count).
CHILD_COLUMNS = (
    "atomic_errors",  # bias-inducing valid atomic mutants
    "with_child",  # ... that are the parent of >= 1 bias-inducing valid intersectional mutant
    "with_any_child",  # ... that are the parent of >= 1 valid intersectional mutant at all
)


def biased_children(
    intersectional: pd.DataFrame | pa.Table, threshold: float | None = None, rule: str = EXCLUDE
) -> tuple[set[str], set[str]]:
    """(parents of a bias-inducing valid intersectional mutant, parents of any valid one with a
    known outcome): the atomic mutant ids that Fig. 9b looks up. Needs ``parent_ids``."""
    frame = _as_frame(intersectional)
    v = verdicts(frame, threshold, rule)
    decided = v["valid"] & v["known"] & v["intersectional"]
    parents = frame["parent_ids"]
    with_any = {p for ps in parents[decided] for p in ps}
    with_biased = {p for ps in parents[decided & v["biased"]] for p in ps}
    return with_biased, with_any


def atomic_children(
    atomic: pd.DataFrame | pa.Table,
    children: tuple[set[str], set[str]],
    by: Sequence[str] = (),
    threshold: float | None = None,
    rule: str = EXCLUDE,
) -> pd.DataFrame:
    """Fig. 9b's counts (``CHILD_COLUMNS``) of atomic outcome rows, one row per group of ``by``:
    a bias-inducing valid atomic mutant has a bias-inducing intersectional "child" when an
    intersectional mutant built from the same pair (it lists the atomic mutant among its
    ``parent_ids``) is valid and bias-inducing too. ``children``: :func:`biased_children`."""
    frame = _as_frame(atomic)
    by = _group_keys(frame, by)
    v = verdicts(frame, threshold, rule)
    errors = (v["valid"] & v["biased"] & ~v["intersectional"]).to_numpy()
    with_biased, with_any = children
    ids = frame["mutant_id"]
    ind = pd.DataFrame(
        {
            "atomic_errors": errors,
            "with_child": errors & ids.isin(with_biased).to_numpy(),
            "with_any_child": errors & ids.isin(with_any).to_numpy(),
        },
        index=frame.index,
    ).astype(np.int64)
    return _sum(pd.concat([frame[by], ind], axis=1), by, CHILD_COLUMNS)


def add_counterpart_rates(totals: pd.DataFrame) -> pd.DataFrame:
    """Fig. 9's shares from pooled counts (fractions, NaN when nothing was counted):
    ``inter_without_atomic`` = hidden / hidden_base (bias-inducing intersectional mutants with
    valid parents none of which is bias-inducing: the hidden rate), its original-artifact
    variant ``inter_without_atomic_artifact`` (docs/design.md §8), ``atomic_with_child`` =
    with_child / with_any_child (the paper's 83.43%: among the bias-inducing atomic mutants
    that parent a valid intersectional mutant at all, 001 l.447 "common to both"), and
    ``atomic_with_child_all`` = with_child / atomic_errors (every bias-inducing atomic mutant,
    also those with no intersectional mutant, e.g. in a document with one attribute only)."""
    return with_ratios(totals, COUNTERPART_RATIOS)


COUNTERPART_RATIOS = {
    "inter_without_atomic": ("hidden", "hidden_base"),
    "inter_without_atomic_artifact": ("hidden_artifact", "hidden_base"),
    "atomic_with_child": ("with_child", "with_any_child"),
    "atomic_with_child_all": ("with_child", "atomic_errors"),
}


def region_key(members: Sequence[bool]) -> str:
    """A Venn/UpSet region as a bit string over the sets in order (``"101"`` = in the first
    and third set only), matplotlib-venn's subset key."""
    return "".join("1" if m else "0" for m in members)


def set_regions(memberships: pd.DataFrame, sets: Sequence[str]) -> pd.DataFrame:
    """Per unit (row) of a membership table (one boolean column per set), one 0/1 column per
    non-empty region of ``sets`` (:func:`region_key` names them) plus ``union``: a unit is in
    exactly one region, the one of the sets it belongs to. Fig. 10's counts are their sums."""
    member = memberships[list(sets)].fillna(False).to_numpy(dtype=bool)
    code = member.astype(np.int64) @ (1 << np.arange(len(sets))[::-1])
    out = {}
    for k in range(1, 1 << len(sets)):
        key = region_key([(k >> (len(sets) - 1 - j)) & 1 == 1 for j in range(len(sets))])
        out[key] = (code == k).astype(np.int64)
    out["union"] = (code > 0).astype(np.int64)
    return pd.DataFrame(out, index=memberships.index)
