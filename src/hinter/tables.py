"""Column contracts of the intermediate tables (docs/design.md §4). Names are stable once used.

Every stage reads and writes these through :func:`hinter.io.read_parquet` /
:func:`hinter.io.write_parquet` with the schema, so a file that drifts from its contract fails
with a message naming the file and column instead of deep inside a later stage.
"""

from __future__ import annotations

import pyarrow as pa

LABELS = pa.list_(pa.int32())

# results/<run>/data/<dataset>/<split>.parquet — one row per document of a split.
DOCUMENTS = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("text", pa.string()),
        pa.field("labels", LABELS),
    ]
)

# results/<run>/data/<dataset>/tested/<shard>.parquet — the documents under test, by shard.
# `position` is the document's rank in the tested order (splits in config order, then rows), so
# "the first N documents" (e.g. RQ5's first 10K IMDB reviews) is `position < N` in every shard.
TESTED_DOCUMENTS = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("split", pa.string()),
        pa.field("position", pa.int64()),
        pa.field("text", pa.string()),
        pa.field("labels", LABELS),
    ]
)

# results/<run>/mutants/<track>/<dataset>/windows/<shard>.parquet — an LLM track's window per
# tested document of a shard: `end` = the character offset where what every LLM of the track
# reads of it ends (under every prompt it runs with), `excluded` = a few-shot example (never
# mutated). Written by hinter.models.llm.write_track_windows.
WINDOWS = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("end", pa.int64()),
        pa.field("excluded", pa.bool_()),
    ]
)

# results/<run>/dictionary/pairs.parquet — directed word pairs of every attribute.
PAIRS = pa.schema(
    [
        pa.field("pair_id", pa.string(), nullable=False),
        pa.field("attribute", pa.string()),
        pa.field("source_class", pa.string()),
        pa.field("target_class", pa.string()),
        pa.field("source", pa.string()),
        pa.field("target", pa.string()),
        pa.field("provenance", pa.string()),
    ]
)

EDIT = pa.struct(
    [
        pa.field("start", pa.int32()),  # character offsets into the original text
        pa.field("end", pa.int32()),
        pa.field("replacement", pa.string()),
    ]
)

# results/<run>/mutants/<track>/<dataset>/<suite>/<shard>.parquet — mutants stored as edits.
# role = "mutant" for members of the suite, "parent" for the atomic parents an intersectional
# suite carries so that it is self-contained for the oracle (same mutant_id as in the atomic suite).
MUTANTS = pa.schema(
    [
        pa.field("mutant_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("order", pa.int8()),
        pa.field("role", pa.string()),
        pa.field("attributes", pa.list_(pa.string())),
        pa.field("pair_ids", pa.list_(pa.string())),
        pa.field("edits", pa.list_(EDIT)),
        pa.field("parent_ids", pa.list_(pa.string())),
    ]
)

# results/<run>/validity/<track>/<dataset>/<suite>/<shard>.parquet — one row per mutants row.
# reason: ok | sentence_count | pos | dep | too_long | disabled (invariant switched off)
VALIDITY = pa.schema(
    [
        pa.field("mutant_id", pa.string(), nullable=False),
        pa.field("valid", pa.bool_()),
        pa.field("reason", pa.string()),
        pa.field("sentence_index", pa.int32()),  # null when no sentence is at fault
    ]
)

# results/<run>/predictions/<model>/<variant>/<dataset>/<shard>.parquet — originals (text_id =
# doc_id) and mutants (text_id = mutant_id). status: ok | skipped_identical | error.
# LLMs (null for encoders): `answer` is the raw generated text, `answer_status` answer | none
# (an explicit "None.": the empty set as an answer) | no_answer (unparseable: labels = [], kept
# and counted); `scores` is empty and `confidence` the answer's probability
# (hinter.models.answers). The file's Parquet metadata (key "hinter") records how the
# predictions were made: backend, model, prompt, generation settings.
PREDICTIONS = pa.schema(
    [
        pa.field("text_id", pa.string(), nullable=False),
        pa.field("kind", pa.string()),  # original | mutant
        pa.field("labels", LABELS),
        pa.field("scores", pa.list_(pa.float32())),
        pa.field("confidence", pa.float32()),
        pa.field("status", pa.string()),
        pa.field("answer", pa.string()),
        pa.field("answer_status", pa.string()),
    ]
)

# results/<run>/outcomes/<model>/<dataset>/<suite>.parquet — one row per mutant (role = mutant)
# of the suite, written by hinter.oracle; every rate of hinter.rates is computed from these rows.
# - parent_ids: the atomic parents (same pairs, one at a time) ordered by the suite name's
#   attribute order (inter-race+gender: race, gender); every parent_* list follows that order.
#   parent_* and parents_valid, hidden, pattern are null for atomic mutants.
# - status: ok | error (a model error on the original or the mutant) | not_predicted
#   (discarded and not kept). labels_*, confidence*, flipped, biased are null unless ok.
# - flipped: O(mutant) != O(original) as label sets, before the confidence threshold;
#   biased: flipped and both confidences >= oracle.confidence_threshold (0 = every flip).
#   parent_flipped / parent_biased: the same for each parent against the original.
#   A skipped_identical prediction takes the original's labels and confidence (benign).
# - skipped_identical: the mutant's text, within the model's window, is the original's (its
#   edits lie beyond what the model reads), so it could not change the prediction; null when
#   the mutant was not predicted. rates counts these beside every rate (G1 of the 2026-11-28
#   fidelity review): a rate over many such mutants is diluted, not low.
# - hidden: valid, biased, all parents valid and benign (null when an outcome is unknown).
# - pattern: the truth-table cell of a valid mutant, "E,B,B" = (mutant, parent 1, parent 2)
#   with E = error (bias), B = benign; "parent discarded" when a parent is invalid; null for a
#   discarded mutant or an unknown outcome.
# - correct_*: right | wrong | no_answer against the gold set (exact set match; an empty
#   prediction is no_answer unless meta.json names the empty set, as ECtHR's "none"; an
#   unparseable LLM answer, answer_status no_answer, is always no_answer);
#   null without gold labels or an outcome.
OUTCOMES = pa.schema(
    [
        pa.field("mutant_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("suite", pa.string()),
        pa.field("order", pa.int8()),
        pa.field("attributes", pa.list_(pa.string())),
        pa.field("pair_ids", pa.list_(pa.string())),
        pa.field("parent_ids", pa.list_(pa.string())),
        pa.field("valid", pa.bool_()),
        pa.field("reason", pa.string()),
        pa.field("status", pa.string()),
        pa.field("skipped_identical", pa.bool_()),
        pa.field("labels_original", LABELS),
        pa.field("labels_mutant", LABELS),
        pa.field("confidence_original", pa.float32()),
        pa.field("confidence", pa.float32()),
        pa.field("flipped", pa.bool_()),
        pa.field("biased", pa.bool_()),
        pa.field("parent_valid", pa.list_(pa.bool_())),
        pa.field("parents_valid", pa.bool_()),
        pa.field("parent_labels", pa.list_(LABELS)),
        pa.field("parent_confidence", pa.list_(pa.float32())),
        pa.field("parent_flipped", pa.list_(pa.bool_())),
        pa.field("parent_biased", pa.list_(pa.bool_())),
        pa.field("hidden", pa.bool_()),
        pa.field("pattern", pa.string()),
        pa.field("correct_original", pa.string()),
        pa.field("correct_mutant", pa.string()),
    ]
)
