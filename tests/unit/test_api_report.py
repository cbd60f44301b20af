"""The Python API, the HTML report and the comparison of models on the same mutants.

One run per module (two tiny classifiers, a dozen short texts, spaCy's real parser): a random
classifier, and the same classifier with its output layer replaced by a constant answer — a
planted difference (it cannot be biased) that the paired bootstrap must find, and that the
comparison must not call a win (a constant model says nothing). Every text and id carries
markup, which the report must show as text.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from browser import chromium
from cli_inputs import LABEL_NAMES, TEXTS, make_classifier, real_parser

from hinter import cli
from hinter.api import BiasTest, Result
from hinter.compare import compare_models, significant_lines

PARSER = real_parser()
pytestmark = pytest.mark.skipif(PARSER is None, reason="spaCy's en_core_web_sm is not installed")
SCRIPT = "<script>window.hacked=1</script>"
IMG = '<img src=x onerror="window.hacked=2">'


def make_constant(source: Path, target: Path) -> Path:
    """``source`` with a classifier head that always answers the first label."""
    import torch
    from safetensors.torch import load_file, save_file

    shutil.copytree(source, target)
    weights = load_file(target / "model.safetensors")
    weights["classifier.weight"] = weights["classifier.weight"] * 0
    weights["classifier.bias"] = torch.tensor([5.0, -5.0])
    save_file(weights, target / "model.safetensors", metadata={"format": "pt"})
    return target


def frame() -> pd.DataFrame:
    rows = []
    for i in range(8):
        first, second = TEXTS[i % len(TEXTS)], TEXTS[(i + 2) % len(TEXTS)]
        rows.append(
            {
                "id": f"{SCRIPT}d{i}",
                "text": f"{first} {IMG} {SCRIPT} {second}",
                "label": LABEL_NAMES[i % 2],
            }
        )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("api")
    model = make_classifier(root / "random")
    flat = make_constant(model, root / "flat")
    test = BiasTest(
        model, frame(), compare=[flat], label_column="label", id_column="id", parser=PARSER,
        max_mutants_per_document=4, out=root / "out", cache_dir=root / "cache",
        fail_above=["atomic=1"],
    )  # fmt: skip
    return root, test.run()


def test_the_result_holds_dataframes_with_intervals(run):
    _, result = run
    assert result.models == ["random", "flat"]
    rates = result.rates.set_index(["model", "rate"])
    for model in result.models:
        for rate in ("atomic", "intersectional"):
            row = rates.loc[(model, rate)]
            assert row.denominator > 0
            assert row.lo <= row.percent <= row.hi
    assert rates.loc[("random", "atomic")].percent > 0  # the random model is biased
    assert rates.loc[("flat", "atomic")].percent == 0  # a constant answer never flips
    assert set(result.suites["model"]) == {"random", "flat"}
    assert {"pattern", "count"} <= set(result.truth_table.columns)
    assert not result.examples.empty and set(result.examples["model"]) == {"random"}
    outcomes = result.outcomes("flat")
    assert len(outcomes) == result.suites.query("model == 'flat'")["mutants"].sum()
    assert not outcomes["flipped"].fillna(False).any()


def test_the_paired_bootstrap_finds_the_planted_difference(run):
    _, result = run
    outcomes = {m: result.outcomes(m) for m in ("random", "flat")}
    frame = compare_models(outcomes, "random", seed=42).set_index("rate")
    for rate in ("atomic", "intersectional"):
        row = frame.loc[rate]
        assert row.model == "flat" and row.baseline == "random"
        assert row.percent == 0 and row.baseline_percent > 0
        assert row.difference < 0 and row.hi < 0 and row.significant
        assert row.numerator == 0 and row.baseline_numerator > 0 and row.documents >= 5


def test_a_comparison_on_one_document_says_too_few_documents(run):
    """C05: one document made every difference "significant" (a point interval)."""
    _, result = run
    outcomes = {m: result.outcomes(m) for m in ("random", "flat")}
    doc = outcomes["random"].loc[outcomes["random"]["flipped"].fillna(False), "doc_id"].iloc[0]
    one = {m: frame[frame["doc_id"] == doc] for m, frame in outcomes.items()}
    found = compare_models(one, "random", resamples=200)
    assert (found["documents"] == 1).all() and not found["significant"].any()
    assert found["note"].str.startswith("too few documents (1 < 5)").all()
    lines = significant_lines(found)
    for line in lines[:2]:  # atomic, intersectional (hidden may be undefined: nothing counted)
        assert line.endswith("not tested: too few documents (1 < 5)"), line
    assert all("significantly" not in line for line in lines)


def test_a_constant_model_never_wins_a_comparison(run):
    """P5, C03: the constant model's 0% is shown beside its accuracy and constant share, and
    its difference is never significant."""
    _, result = run
    frame = result.comparison.set_index("rate")
    assert not frame["significant"].any()
    assert (frame["note"] == "flat is a constant model").all()
    quality = result.quality.set_index("model")
    assert quality.loc["flat", "constant_share"] == 100 and quality.loc["flat", "constant"]
    assert quality.loc["random", "constant_share"] < 100 and not quality.loc["random", "constant"]
    # accuracy on the originals, recomputed from the planted gold labels and the predictions
    gold = {f"{SCRIPT}d{i}": LABEL_NAMES[i % 2] for i in range(8)}
    for model in result.models:
        predicted = result.outcomes(model).drop_duplicates("doc_id")
        right = [
            LABEL_NAMES[labels[0]] == gold[doc]
            for doc, labels in zip(predicted["doc_id"], predicted["labels_original"], strict=True)
        ]
        assert len(predicted) == 8  # every original has mutants: all its predictions are here
        assert quality.loc[model, "accuracy"] == pytest.approx(100 * sum(right) / 8)
    assert quality.loc["flat", "accuracy"] == 50  # half the gold labels are the constant one
    assert any("flat predicts 'negative' for all 8 originals" in w for w in result.warnings())


def test_the_same_model_twice_differs_significantly_in_nothing(run):
    _, result = run
    outcomes = result.outcomes("random")
    same = compare_models({"a": outcomes, "b": outcomes}, "a", resamples=200)
    assert (same["difference"].fillna(0) == 0).all() and not same["significant"].any()


def test_the_gate_and_the_json_summary(run):
    root, result = run
    assert result.verdict.failed  # the random model's atomic rate is above 1%
    document = json.loads(result.write_json(root / "summary.json").read_text())
    assert document["verdict"] == "fail" and document["exceeded"][0]["rate"] == "atomic"
    assert document["model"]["name"] == "random" and document["compared"][0]["name"] == "flat"
    assert {r["rate"] for r in document["comparison"]} == {"atomic", "intersectional", "hidden"}


def test_the_report_escapes_every_text_of_the_data(run):
    root, result = run
    page = result.write_report(root / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"<script|<img src=x|onerror=\"", page, flags=re.IGNORECASE)
    assert "&lt;script&gt;window.hacked=1&lt;/script&gt;" in page
    assert page.index("<h2>Verdict</h2>") < page.index("<h2>Rates per suite")  # verdict first
    assert "Gate: FAIL" in page and "not tested: flat is a constant model" in page
    assert page.count("data:image/png;base64,") == 4  # figs 4-6 and the group heatmap
    again = result.write_report(root / "again.html").read_text(encoding="utf-8")
    assert again == page  # no timestamps: a rerun writes the same bytes


def _rows(table: str) -> list[list[tuple[str, str]]]:
    """(class, text) of every cell of every row of an HTML table."""
    return [
        [(cls or "", re.sub(r"<[^>]+>", "", text)) for cls, text in
         re.findall(r"<t[hd](?: class=(\w+))?>(.*?)</t[hd]>", row, flags=re.DOTALL)]
        for row in re.findall(r"<tr>(.*?)</tr>", table, flags=re.DOTALL)
    ]  # fmt: skip


def test_the_report_is_right_about_the_planted_run(run):
    """P1, P6, P7, P8, P20: every tag, caption and interval of the page against the run's own
    outcomes (the planted truth: which mutant flipped, which parent did not)."""
    from hinter.statistics import exact_interval

    root, result = run
    page = result.write_report(root / "truth.html").read_text(encoding="utf-8")
    # P1: in each example the intersectional mutant is the bias, its atomic parents unchanged
    blocks = re.findall(r'<table class="example">(.*?)</table>', page, flags=re.DOTALL)
    groups = list(result.examples.groupby(["model", "suite", "mutant_id"], sort=False))
    assert len(blocks) == len(groups) > 0
    outcomes = pd.concat([result.outcomes(m) for m in result.models]).set_index("mutant_id")
    for block, ((model, _, mutant), rows) in zip(blocks, groups, strict=True):
        truth = outcomes.loc[mutant]
        truth = truth[truth["model"] == model].iloc[0]
        assert truth["biased"] and not any(truth["parent_biased"])  # a hidden bias
        cells = re.findall(r"<td>(.*?)</td>", block.split("<tr>")[-1], flags=re.DOTALL)
        assert len(cells) == len(rows) == len(truth["parent_ids"]) + 2
        assert "bias" not in cells[0] and "no change" not in cells[0]  # the original
        for parent in cells[1:-1]:
            assert "no change" in parent and "bias: prediction changed" not in parent
        assert "bias: prediction changed" in cells[-1] and "no change" not in cells[-1]
        original, last = (re.sub(r" \(.*", "", c) for c in (cells[0], cells[-1]))
        assert original != last  # the tagged prediction did change
    # P6: the truth table's caption names its columns in their real order
    assert "(mutant, parent 1, parent 2[, parent 3])" in page
    assert "atomic I, atomic II, intersectional" not in page
    # P8: the examples' Markdown escapes are gone: markup shows as typed, never as \<img\>
    assert "\\&lt;" not in page and "\\&gt;" not in page and "\\<" not in page
    assert re.search(r'<table class="example">.*?&lt;script&gt;', page, flags=re.DOTALL)
    # P20: no machine-absolute path; the models' folders relative to --out
    assert str(root) not in page and "(<code>../random</code>)" in page
    assert "(<code>../flat</code>)" in page
    # P20: every header aligned like its column's cells
    for table in re.findall(r"<table>(.*?)</table>", page, flags=re.DOTALL):
        head, *body = _rows(table)
        for row in body:
            assert [c for c, _ in row] == [c for c, _ in head]
    # P7: counts beside every pooled rate; intervals never narrower than the exact one
    verdict = page[page.index("<h2>Verdict</h2>") : page.index("<h2>Models on the originals")]
    pooled = _rows(re.findall(r"<table>(.*?)</table>", verdict, flags=re.DOTALL)[-1])
    assert [text for _, text in pooled[0]][:5] == [
        "model", "rate", "count", "percent", "95% interval",
    ]  # fmt: skip
    shown = {(r[0][1], r[1][1]): r for r in pooled[1:]}
    for model in result.models:
        frame = result.outcomes(model)
        valid = frame[frame["valid"].fillna(False) & (frame["status"] == "ok")]
        for rate, part in (("atomic", valid[valid["order"] == 1]),
                           ("intersectional", valid[valid["order"] >= 2])):  # fmt: skip
            k, n = int(part["biased"].sum()), len(part)
            row = shown[(model, rate)]
            assert row[2][1] == f"{k:,} of {n:,}"
            lo, hi = (float(v) for v in row[4][1].strip("[]").split(", "))
            exact = exact_interval(k, n)
            assert lo <= round(100 * exact[0], 2) + 0.01 and hi >= round(100 * exact[1], 2) - 0.01
            assert hi > lo  # never a zero-width interval (flat: 0 of 64)
    assert "Clopper–Pearson" in verdict and "too few" in verdict
    # G7: a group on fewer than --min-count decided mutants is "too few", never "biased"
    groups = page[page.index("<h2>Group-level bias</h2>") : page.index("<h2>Hidden-bias")]
    table = _rows(re.findall(r"<table>(.*?)</table>", groups, flags=re.DOTALL)[0])
    names = [text for _, text in table[0]]
    assert names[4:] == ["count", "error rate %", "95% interval", "scope mean %", "biased group"]
    seen = set()
    for row in table[1:]:
        k, n = (int(v.replace(",", "")) for v in row[4][1].split(" of "))
        seen.add(row[8][1])
        assert row[8][1] == ("too few" if n < result.min_count else row[8][1])
        assert row[8][1] != "too few" or n < result.min_count
        if n:
            lo, hi = (float(v) for v in row[6][1].strip("[]").split(", "))
            assert hi > lo and lo <= round(100 * exact_interval(k, n)[0], 2) + 0.01
    assert "too few" in seen
    # P22: the pairs behind the flips, counted from the first model's valid outcomes
    pairs = page[page.index("<h2>Dictionary pairs behind the flips</h2>") :]
    table = _rows(re.findall(r"<table>(.*?)</table>", pairs, flags=re.DOTALL)[0])
    assert [t for _, t in table[0]][:4] == ["attribute", "source", "target", "valid mutants"]
    frame = result.outcomes(result.models[0])
    used = frame[frame["valid"].fillna(False).astype(bool)].explode("pair_ids")
    most = used.groupby("pair_ids")["biased"].sum().max()
    assert int(table[1][4][1].replace(",", "")) == int(most) > 0


def test_an_imdb_line_break_is_a_line_break_in_the_examples():
    """P8: "Ranger.\\<br /\\>\\<br /\\>The baddies" was shown with Markdown's escapes."""
    from hinter.edits import Edit
    from hinter.report import _marked
    from hinter.rq.examples import highlight

    text = "A fine Ranger.<br /><br />The baddies are <b>men</b> & women."
    cell = _marked(highlight(text, [Edit(45, 48, "women")], [(45, 48)], context=200))
    assert cell == (
        "A fine Ranger.<br><br>The baddies are &lt;b&gt;<mark>women</mark>&lt;/b&gt; &amp; women."
    )


def test_a_model_with_nan_weights_is_an_error_not_a_pass(run, tmp_path, capsys):
    """C03, C04: NaN logits predicted label 0 with status ok and passed a gate."""
    import torch
    from safetensors.torch import load_file, save_file

    root, _ = run
    broken = shutil.copytree(root / "random", tmp_path / "nan")
    weights = load_file(broken / "model.safetensors")
    weights["classifier.weight"] = weights["classifier.weight"] * torch.tensor(float("nan"))
    save_file(weights, broken / "model.safetensors", metadata={"format": "pt"})
    data = tmp_path / "texts.csv"
    frame().head(3).to_csv(data, index=False)
    code = cli.main(
        ["test", str(broken), str(data), "--out", str(tmp_path / "o"), "--no-invariant",
         "--max-mutants-per-document", "2", "--fail-above", "atomic=50", "--min-count", "1"]
    )  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == cli.EXIT_ERROR
    assert err[-1] == (
        f"hinter: model {broken}: the model's logits are not finite (NaN or infinite) for 3 "
        "of 3 texts: its weights are broken, so its predictions mean nothing"
    )
    assert not (tmp_path / "o" / "report.html").exists()


def _chrome():
    webdriver = pytest.importorskip("selenium.webdriver")
    _, chromedriver = chromium()  # installed with apt-get when missing (as root)
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,2000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(chromedriver), options=options)


def test_the_report_opens_in_headless_chromium(run):
    root, result = run
    path = result.write_report(root / "browser.html")
    driver = _chrome()
    try:
        driver.get(path.as_uri())
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
        images = driver.execute_script(
            "return Array.from(document.images).map(i => [i.complete, i.naturalWidth])"
        )
        assert len(images) == 4 and all(done and width > 0 for done, width in images)
        assert driver.execute_script("return window.hacked") is None  # nothing ran
        body = driver.find_element("tag name", "body").text
        assert SCRIPT in body  # shown as text
        examples = driver.find_elements("css selector", "table.example")
        assert examples and examples[0].find_elements("tag name", "mark")
    finally:
        driver.quit()


def test_hinter_test_compare_on_the_command_line(run, tmp_path, capsys):
    """P5, C03, C04: the constant model tested first, gated, against the working one: its
    accuracy and constant share are shown, it wins nothing and fails the gate (exit 1)."""
    root, _ = run
    data = tmp_path / "texts.csv"
    frame().to_csv(data, index=False)
    out, report = tmp_path / "out", tmp_path / "page.html"
    code = cli.main(
        [
            "test", str(root / "flat"), str(data), "--compare", str(root / "random"),
            "--label-column", "label", "--id-column", "id", "--parser", PARSER,
            "--max-mutants-per-document", "4", "--cache-dir", str(root / "cache"),
            "--out", str(out), "--report", str(report), "--json", str(tmp_path / "s.json"),
            "--fail-above", "atomic=50",
        ]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 1, captured.err  # 0.00% <= 50%, but a constant model never passes
    err = captured.err.rstrip().splitlines()
    assert err[-1].startswith("hinter: bias gate failed: flat predicts 'negative' for all 8 ")
    assert any(line.startswith("hinter: warning: flat predicts 'negative'") for line in err)
    assert "Models on the same mutants" in captured.out and "random" in captured.out
    assert f"report: {report}" in captured.err and report.is_file()
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["verdict"] == "error" and summary["exit_code"] == 1 and summary["broken"]
    assert [c["significant"] for c in summary["comparison"]] == [False] * 3
    assert {c["note"] for c in summary["comparison"]} == {"flat is a constant model"}
    quality = {q["model"]: q for q in summary["quality"]}
    assert quality["flat"]["constant_share"] == 100 and quality["flat"]["accuracy"] == 50
    assert quality["random"]["constant_share"] < 100 and quality["random"]["accuracy"] > 0
    rows = [line for line in captured.out.splitlines() if "negative" in line]
    assert any(r.startswith("│ flat ") and "50.00" in r and "100.00" in r for r in rows)
    assert summary["rates"]["atomic"]["lo"] == 0 and summary["rates"]["atomic"]["hi"] > 0
    page = re.sub(r"data:image/png;base64,[^\"]+", "", report.read_text(encoding="utf-8"))
    # "–", never a bare nan (a word: "pregnant woman" is a dictionary pair of the page)
    assert not re.search(r"\bnan\b", captured.out.lower() + page.lower())
    assert "Gate: ERROR" in page and "a constant model cannot flip" in page
    tail = captured.out.rstrip().splitlines()
    assert any("Pooled rates" in line for line in tail[-12:])  # the summary ends with them
    assert "The original artifact's condition" not in captured.out  # in the appendix now
    assert "The original artifact" in page[page.index("<h2>Appendix</h2>") :]


def test_a_compared_model_with_other_labels_is_refused_before_any_work(run, tmp_path, capsys):
    root, _ = run
    other = shutil.copytree(root / "flat", tmp_path / "other")
    sidecar = json.loads((other / "hinter.json").read_text())
    sidecar["label_names"] = ["bad", "good"]
    (other / "hinter.json").write_text(json.dumps(sidecar))
    data = tmp_path / "texts.csv"
    frame().to_csv(data, index=False)
    code = cli.main(
        ["test", str(root / "random"), str(data), "--compare", str(other),
         "--out", str(tmp_path / "out"), "--no-invariant"]
    )  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == cli.EXIT_ERROR and len(err) == 1
    assert err[0].startswith(f"hinter: --compare {other}: its label names") and "differ" in err[0]
    assert not (tmp_path / "out").exists()


def test_the_readme_example_runs(repo, tmp_path, monkeypatch):
    """The README's Python example, as written, with the model path pointing at a tiny model."""
    readme = (repo / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    example = next(b for b in blocks if "from hinter.api import" in b)
    assert len(example.strip().splitlines()) <= 12
    model = make_classifier(tmp_path / "clf")
    sidecar = model / "hinter.json"  # labelled like the quick start's model (`make model`)
    sidecar.write_text(
        sidecar.read_text().replace('"negative"', '"neg"').replace('"positive"', '"pos"')
    )
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    code = example.replace('"results/quickstart/model"', repr(str(model)))
    assert code != example
    extra = f"parser={PARSER!r}, max_mutants_per_document=2"  # the real parser, a quick run
    code = code.replace('out="hinter-run")', f'out="hinter-run", {extra})')
    exec(compile(code, "README.md", "exec"), namespace)  # our own README
    result = namespace["result"]
    assert isinstance(result, Result) and (tmp_path / "hinter-run" / "report.html").is_file()
    assert set(result.rates["rate"]) == {"atomic", "intersectional", "hidden"}


def test_bad_api_arguments_are_one_line_errors(tmp_path):
    from hinter.errors import HinterError

    cases = {
        "fail_above: expected RATE=PERCENT": dict(fail_above=["bogus"]),
        "labels: 1 labels for 2 texts": dict(labels=["positive"]),
        "model folder nowhere: not found": dict(),
    }
    for message, extra in cases.items():
        with pytest.raises(HinterError, match=re.escape(message)):
            BiasTest("nowhere", ["A text.", "Another."], out=tmp_path / "out", **extra)
    with pytest.raises(HinterError, match="texts: expected a DataFrame"):
        BiasTest("nowhere", [1, 2])
    assert not (tmp_path / "out").exists()


def test_a_group_above_its_mean_on_errors_of_too_few_documents_reads_too_few(tmp_path):
    """The report's groups follow RQ1's flag rule: above the scope mean on enough decided
    mutants but with errors from fewer than MIN_DOCUMENTS documents is "too few", not "no"."""
    from types import SimpleNamespace

    from hinter import report
    from hinter.layout import RunLayout
    from hinter.statistics import MIN_DOCUMENTS

    path = Path(RunLayout(str(tmp_path)).rq_output(1, "group_bias", "csv"))
    path.parent.mkdir(parents=True)
    base = {"model": "m", "kind": "GAB", "attributes": "race", "decided": 40,
            "scope_mean_pct": 5.0, "low": 1.0, "high": 30.0}  # fmt: skip
    rows = [
        {**base, "group": "few", "errors": 6, "error_rate_pct": 15.0,
         "error_documents": MIN_DOCUMENTS - 1, "above_mean": False},
        {**base, "group": "many", "errors": 6, "error_rate_pct": 15.0,
         "error_documents": MIN_DOCUMENTS, "above_mean": True},
        {**base, "group": "below", "errors": 1, "error_rate_pct": 2.5,
         "error_documents": 1, "above_mean": False},
    ]  # fmt: skip
    pd.DataFrame(rows).to_csv(path, index=False)
    html = report._groups(SimpleNamespace(out=tmp_path, min_count=10))
    verdict = {g: re.search(rf"<td>{g}</td>.*?<td>([a-z ]+)</td>\s*</tr>", html, re.S)[1]
               for g in ("few", "many", "below")}  # fmt: skip
    assert verdict == {"few": "too few", "many": "yes", "below": "no"}
