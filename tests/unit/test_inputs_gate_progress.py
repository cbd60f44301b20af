"""What good inputs become (the catalogue covers bad ones), the gate's arithmetic, progress lines,
and config values typed by the schema."""

from __future__ import annotations

import io as _io
import json
import time

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hinter import gate, inputs, progress
from hinter.config import coerce, load_yaml, validate_config
from hinter.errors import DataError, HinterError

NAMES = ["negative", "positive"]


def _docs(path, **kwargs):
    options = {
        "text_column": "text",
        "label_column": "label",
        "id_column": None,
        "label_names": NAMES,
        "task_type": "multi_class",
    }
    options.update(kwargs)
    return inputs.documents(inputs.read_file(path), **options)


def test_csv_with_quoted_newlines_and_names(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('text,label\n"Line one,\nline two.",Positive\nPlain.,negative\n')
    docs = _docs(path)
    assert docs.label_reading == "names"
    assert docs.table.column("text").to_pylist() == ["Line one,\nline two.", "Plain."]
    assert docs.table.column("labels").to_pylist() == [[1], [0]]
    assert docs.table.column("doc_id").to_pylist() == ["doc-000000", "doc-000001"]


def test_a_column_of_ids_with_an_unknown_gold(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("text,label\nA.,1\nB.,\nC.,0\n")
    docs = _docs(path)
    assert docs.label_reading == "ids"
    assert docs.table.column("labels").to_pylist() == [[1], None, [0]]


def test_numeric_names_that_match_their_ids_are_not_ambiguous(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("text,label\nA.,1\nB.,0\n")
    assert _docs(path, label_names=["0", "1"]).label_reading == "names"


def test_label_format_settles_numeric_names(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("text,label\nA.,1\nB.,2\n")
    with pytest.raises(DataError, match="both a label name and a label id"):
        _docs(path, label_names=["1", "2", "3"])
    as_names = _docs(path, label_names=["1", "2", "3"], label_format="names")
    assert as_names.table.column("labels").to_pylist() == [[0], [1]]
    as_ids = _docs(path, label_names=["1", "2", "3"], label_format="ids")
    assert as_ids.table.column("labels").to_pylist() == [[1], [2]]


def test_jsonl_lists_and_multi_label(tmp_path):
    path = tmp_path / "t.jsonl"
    rows = [
        {"text": "A.", "label": [1, 0]},
        {"text": "B.", "label": []},
        {"text": "C.", "label": "[1]"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    docs = _docs(path, task_type="multi_label")
    assert docs.table.column("labels").to_pylist() == [[0, 1], [], [1]]


def test_parquet_ids_and_max_rows(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"id": [7, 8, 9], "text": ["A.", "B.", "C."]}), path)
    read = inputs.read_file(path, max_rows=2)
    docs = inputs.documents(
        read,
        text_column="text",
        label_column=None,
        id_column="id",
        label_names=NAMES,
        task_type="multi_class",
    )
    assert docs.table.column("doc_id").to_pylist() == ["7", "8"]


def test_skip_empty_keeps_row_numbers_in_ids(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('text\nA.\n" "\nC.\n')
    docs = _docs(path, label_column=None, skip_empty=True)
    assert docs.skipped_empty == [2]
    assert docs.table.column("doc_id").to_pylist() == ["doc-000000", "doc-000002"]


def test_a_long_text_is_not_cut_by_the_csv_field_limit(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("text\n" + "word " * 100_000 + "\n")
    assert len(inputs.read_file(path).rows[0].values["text"]) == 500_000


# ------------------------------------------------------------------------- the gate


def _counts():
    rows = [
        {
            "suite": "atomic-race",
            "order": 1,
            "decided": 100,
            "errors": 10,
            "hidden_base": 0,
            "hidden": 0,
        },
        {
            "suite": "atomic-gender",
            "order": 1,
            "decided": 50,
            "errors": 0,
            "hidden_base": 0,
            "hidden": 0,
        },
        {
            "suite": "inter-race+gender",
            "order": 2,
            "decided": 200,
            "errors": 40,
            "hidden_base": 40,
            "hidden": 4,
        },
        {
            "suite": "inter-body+race",
            "order": 2,
            "decided": 0,
            "errors": 0,
            "hidden_base": 0,
            "hidden": 0,
        },
    ]
    frame = pd.DataFrame(rows)
    for column in gate.rates.COUNT_COLUMNS:
        if column not in frame:
            frame[column] = 0
    return frame


def test_pooled_rates_divide_summed_counts_once():
    pooled = gate.pooled_rates(_counts())
    lo, hi = (100 * v for v in gate.statistics.exact_interval(10, 150))
    assert pooled["atomic"] == {
        "percent": pytest.approx(100 * 10 / 150),
        "numerator": 10,
        "denominator": 150,
        "lo": pytest.approx(lo),
        "hi": pytest.approx(hi),
        "interval": "exact binomial (Clopper-Pearson), 95%",
    }
    assert pooled["inter-body+race"]["lo"] is None  # nothing counted: no interval either
    assert pooled["intersectional"]["percent"] == 20.0
    assert pooled["hidden"]["percent"] == 10.0
    assert pooled["inter-body+race"]["percent"] is None  # nothing counted: no value


def test_thresholds_fail_strictly_above_and_undefined_rates_never_pass():
    pooled = gate.pooled_rates(_counts())
    thresholds = [
        gate.parse_threshold(t) for t in ("hidden=10", "intersectional=19.5%", "inter-body+race=0")
    ]
    verdict = gate.evaluate(pooled, thresholds)
    assert verdict.failed and [t.rate for t, _ in verdict.exceeded] == ["intersectional"]
    assert [t.rate for t in verdict.undefined] == ["inter-body+race"]
    assert verdict.line() == (
        "bias gate failed: intersectional 20.00% > 19.5%; inter-body+race undefined (nothing "
        "counted) (exit code 3)"
    )
    assert verdict.exit_code == 3
    passed = gate.evaluate(pooled, [gate.parse_threshold("hidden=10")])
    assert not passed.failed and passed.line() == "bias gate passed: hidden ≤ 10%"
    document = gate.summary(_counts(), verdict, pooled, model="m")
    assert document["verdict"] == "fail" and document["thresholds"]["intersectional"] == 19.5
    json.dumps(document)  # serialisable as is
    # G01: a gated rate with nothing counted is an error of the gate, never a pass
    nothing = gate.evaluate(pooled, [gate.parse_threshold("inter-body+race=0")])
    assert not nothing.failed and nothing.exit_code == gate.EXIT_UNDEFINED == 1
    assert nothing.word == "error" and nothing.line().startswith("bias gate cannot decide: ")


def test_a_rate_on_too_few_mutants_neither_passes_nor_fails():
    """P4: "hidden 50.00% > 10%" from 1 hidden of 2 failed a build. Below --min-count a gated
    rate is too few: the gate cannot decide (exit 1), and cannot pass either."""
    counts = pd.DataFrame(
        [{"suite": "inter-race+gender", "order": 2, "decided": 40, "errors": 2,
          "hidden_base": 2, "hidden": 1}]
    )  # fmt: skip
    for column in gate.rates.COUNT_COLUMNS:
        if column not in counts:
            counts[column] = 0
    pooled = gate.pooled_rates(counts)
    hidden = gate.parse_threshold("hidden=10")
    verdict = gate.evaluate(pooled, [hidden])
    assert not verdict.failed and verdict.too_few == ((hidden, 2),)
    assert verdict.exit_code == gate.EXIT_UNDEFINED and verdict.word == "error"
    assert verdict.line() == (
        "bias gate cannot decide: hidden too few: 2 mutants, fewer than --min-count 10; the "
        "run vouches for nothing (exit code 1)"
    )
    low = gate.evaluate(pooled, [hidden], min_count=2)  # the user lowers the minimum
    assert low.failed and low.exit_code == gate.EXIT_GATE
    passing = gate.evaluate(pooled, [gate.parse_threshold("hidden=60")], min_count=3)
    assert passing.exit_code == 1  # below the minimum, even a rate under the limit
    enough = gate.evaluate(pooled, [gate.parse_threshold("intersectional=10")])
    assert enough.word == "pass" and enough.exit_code == 0  # 40 mutants decide
    document = gate.summary(counts, verdict, pooled)
    assert document["too_few"] == [{"rate": "hidden", "denominator": 2}]
    assert document["min_count"] == 10 and document["verdict"] == "error"
    assert document["rates"]["hidden"]["lo"] < 50 < document["rates"]["hidden"]["hi"]


def test_a_constant_model_never_passes_a_gate():
    """C04: a model that predicts one label for every text has rates of 0 by construction."""
    pooled = gate.pooled_rates(_counts())
    reason = "m predicts 'pos' for all 12 originals (a constant model cannot flip)"
    verdict = gate.evaluate(pooled, [gate.parse_threshold("atomic=50")], broken=[reason])
    assert not verdict.failed and verdict.exit_code == gate.EXIT_UNDEFINED
    assert verdict.line().startswith(f"bias gate failed: {reason}; its bias rates say nothing")
    assert gate.evaluate(pooled, [], broken=[reason]).exit_code == 0  # no gate: a warning only


def test_a_threshold_on_an_aggregate_no_suite_plans_is_refused():
    """G02: ``--orders 1 --fail-above intersectional=0`` would pass on nothing."""
    atomic = ["atomic-race", "atomic-gender"]
    for rate in ("intersectional", "hidden"):
        with pytest.raises(HinterError, match=f"--fail-above {rate}: no intersectional suite"):
            gate.check_thresholds([gate.parse_threshold(f"{rate}=0")], atomic)
    with pytest.raises(HinterError, match="--fail-above atomic: no atomic suite"):
        gate.check_thresholds([gate.parse_threshold("atomic=0")], ["inter-race+gender"])
    gate.check_thresholds([gate.parse_threshold("atomic=0")], atomic)


# ------------------------------------------------------------------------- progress


def test_progress_lines_every_interval_with_counts_rate_and_eta(monkeypatch):
    clock = iter([0.0, 5.0, 10.0, 20.0, 30.0])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    stream = _io.StringIO()  # not a terminal: lines, not a bar
    with progress.Progress("predict", 100, "texts", stream=stream, every=10) as bar:
        bar.update(10)  # t=5: too early for a line
        bar.update(10)  # t=10: a line
        bar.update(30)  # t=20: a line
    lines = stream.getvalue().splitlines()
    assert lines[0] == "hinter: predict: 20/100 texts (20%), 10 s, 2.0 texts/s, ETA 40 s"
    assert lines[1] == "hinter: predict: 50/100 texts (50%), 20 s, 2.5 texts/s, ETA 20 s"
    assert lines[-1] == "hinter: predict: 50 texts in 30 s"


def test_progress_goes_to_a_job_log_when_configured():
    seen = []
    progress.configure(seen.append)
    try:
        with progress.Progress("invariant", 4, "mutants", every=0) as bar:
            bar.update(4)
    finally:
        progress.configure(None)
    assert seen[0].startswith("invariant: 4/4 mutants (100%)") and seen[-1].startswith(
        "invariant: 4"
    )


def test_durations():
    assert [progress.duration(s) for s in (4.4, 65, 3725)] == ["4 s", "1:05", "1:02:05"]


# ------------------------------------------------------------------------- config values


def test_config_strings_from_the_command_line_are_typed_by_the_schema(repo):
    demo = load_yaml(repo / "config" / "demo.yaml")
    # `--config oracle='{confidence_threshold: 0.5}'` arrives with YAML's base loader: strings.
    demo["oracle"] = {"confidence_threshold": "0.5", "examples": "3"}
    demo["mutation"]["max_mutants_per_document"] = "null"
    demo["run_name"] = "123"  # a string in the schema: kept
    cfg = validate_config(demo)
    assert cfg["oracle"]["confidence_threshold"] == 0.5 and cfg["oracle"]["examples"] == 3
    assert cfg["mutation"]["max_mutants_per_document"] is None
    assert cfg["run_name"] == "123"


def test_coerce_leaves_what_does_not_parse():
    schema = {"type": "object", "properties": {"x": {"type": "number"}}}
    assert coerce({"x": "abc"}, schema, schema) == {"x": "abc"}


def test_startup_checks_only_what_the_jobs_about_to_run_need(repo, tmp_path):
    from hinter.config import startup_checks
    from hinter.errors import ConfigError

    cfg = validate_config(load_yaml(repo / "config" / "config.yaml"))
    cfg["parser"]["pipeline"] = "en_core_web_zz"
    cfg["results_dir"] = cfg["cache_dir"] = str(tmp_path)
    startup_checks(cfg, tmp_path, jobs=[("download_dataset", {"dataset": "imdb"})])
    with pytest.raises(ConfigError, match=r"parser\.pipeline"):
        startup_checks(cfg, tmp_path, jobs=[("check_invariant", {"suite": "atomic-race"})])
    with pytest.raises(ConfigError, match=r"parser\.pipeline"):
        startup_checks(cfg, tmp_path)  # everything (hinter check-config)


SCOTUS = [str(i) for i in range(1, 15)]  # SCOTUS's issue areas are named "1".."14"


def test_issue_case_text_1_and_json_3_never_silently_change_meaning(tmp_path):
    """A CSV column holding `1` and `[3]` once gave id 1 or name "1" depending on the other rows."""
    path = tmp_path / "t.csv"
    path.write_text('text,label\nA.,1\nB.,"[3]"\n')
    with pytest.raises(DataError, match="both a label name and a label id"):
        _docs(path, label_names=SCOTUS)
    as_ids = _docs(path, label_names=SCOTUS, label_format="ids")
    assert as_ids.table.column("labels").to_pylist() == [[1], [3]]
    as_names = _docs(path, label_names=SCOTUS, label_format="names")
    assert as_names.table.column("labels").to_pylist() == [[0], [2]]


def test_typed_numbers_are_ids_even_with_numeric_names(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"text": ["A.", "B."], "label": [[1], [13]]}), path)
    docs = _docs(path, label_names=SCOTUS)
    assert docs.label_reading == "ids"
    assert docs.table.column("labels").to_pylist() == [[1], [13]]


def test_progress_interval_grows_with_the_stage(monkeypatch):
    monkeypatch.delenv("HINTER_PROGRESS_INTERVAL", raising=False)
    # at most 30 s between lines (review 2026-11-28 P10: a line at least every 30 s)
    assert [progress.interval(t) for t in (0, 60, 600, 7200)] == [5.0, 5.0, 30.0, 30.0]
    monkeypatch.setenv("HINTER_PROGRESS_INTERVAL", "2")
    assert progress.interval(7200) == 2.0


def test_a_stage_without_counts_still_says_it_is_alive():
    """P10: one slow batch or a long evaluation moves no count; the heartbeat writes a line
    anyway, and a stage that ends by an exception says it stopped (not "in 2:41")."""
    stream = _io.StringIO()
    bar = progress.Progress("predict", 10, "texts", stream=stream, heartbeat=0.05)
    with pytest.raises(KeyboardInterrupt), bar:
        bar.update(1)
        time.sleep(0.3)  # no update: only the heartbeat can write
        raise KeyboardInterrupt
    lines = stream.getvalue().splitlines()
    assert any(line.startswith("hinter: predict: 1/10 texts (10%)") for line in lines), lines
    assert lines[-1].startswith("hinter: predict: stopped at 1/10 texts after "), lines


def test_no_heartbeat_thread_outlives_its_stage_or_the_interpreter():
    """A heartbeat thread that wakes while the interpreter finalizes aborts the process (a
    demo job died with SIGABRT, "terminate called without an active exception"): close()
    joins it, and an exit hook stops those of stages never closed."""
    closed = progress.Progress("a", 3, stream=_io.StringIO(), heartbeat=0.01)
    forgotten = progress.Progress("b", 3, stream=_io.StringIO(), heartbeat=0.01)
    assert closed._thread.is_alive() and forgotten._thread.is_alive()
    closed.close()
    assert not closed._thread.is_alive() and closed not in progress._BEATING
    progress._stop_heartbeats()  # what atexit runs before finalization
    assert not forgotten._thread.is_alive() and not progress._BEATING


def test_slow_rates_are_given_per_minute_or_hour():
    assert progress.rate(34.25, "texts") == "34.2 texts/s"
    assert progress.rate(70 / 600, "answers") == "7.0 answers/min"
    assert progress.rate(1 / 600, "steps") == "6.0 steps/h"


@pytest.fixture
def restored_logging():
    """workflow.run configures the root logger for a job process: undo it for other tests."""
    import logging

    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers[:]:
        root.removeHandler(handler)
        handler.close()
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)
    progress.configure(None)


def test_a_job_that_fails_on_a_full_disk_ends_with_one_line(tmp_path, capsys, restored_logging):
    import errno
    from types import SimpleNamespace

    from hinter import workflow

    def main():
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "x.parquet"))

    job = SimpleNamespace(log=[str(tmp_path / "job.log")])
    with pytest.raises(SystemExit) as exit_info:
        workflow.run(job, main)
    assert exit_info.value.code == 1
    advice = "no space left on the device (free some space and rerun to resume)"
    line = f"hinter: {tmp_path / 'x.parquet'}: {advice}"
    assert capsys.readouterr().err.splitlines()[-1] == line
    assert line.removeprefix("hinter: ") in (tmp_path / "job.log").read_text()


def test_a_swallowed_interrupt_stops_long_work_at_the_next_update():
    bar = progress.Progress("predict", 10, "texts", every=1e9)
    bar.update(1)
    progress.request_stop(KeyboardInterrupt())
    try:
        with pytest.raises(KeyboardInterrupt):
            bar.update(1)
    finally:
        progress.request_stop(None)
    bar.update(1)
    assert bar.count == 2
    bar.close()


def test_progress_inside_a_stage_prints_lines_even_on_a_terminal(monkeypatch):
    """The chat backends count answers inside the predict stage's bar: lines, never a bar."""

    class Terminal(_io.StringIO):
        def isatty(self) -> bool:
            return True

    clock = iter([0.0, 40.0, 50.0])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    stream = Terminal()
    bar = progress.Progress("generated", 8, "answers", stream=stream, every=30.0, bar=False)
    assert bar._bar is None
    bar.update(4)  # t=40: a line
    assert (
        stream.getvalue()
        == "hinter: generated: 4/8 answers (50%), 40 s, 6.0 answers/min, ETA 40 s\n"
    )
    bar.close()  # t=50: the closing line; no heartbeat left running
    assert stream.getvalue().endswith("hinter: generated: 4 answers in 50 s\n")
