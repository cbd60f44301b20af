"""The Python API, the HTML report and the comparison of models on the same mutants.

One run per module (two tiny classifiers, a dozen short texts, spaCy's real parser): a random
classifier, and the same classifier with its output layer replaced by a constant answer — a
planted difference (it cannot be biased) that the paired bootstrap must find. Every text and
id carries markup, which the report must show as text.
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
from hinter.compare import compare_models

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
    frame = result.comparison.set_index("rate")
    for rate in ("atomic", "intersectional"):
        row = frame.loc[rate]
        assert row.model == "flat" and row.baseline == "random"
        assert row.percent == 0 and row.baseline_percent > 0
        assert row.difference < 0 and row.hi < 0 and row.significant


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
    assert "Gate: FAIL" in page and "significantly lower" in page
    assert page.count("data:image/png;base64,") == 4  # figs 4-6 and the group heatmap
    again = result.write_report(root / "again.html").read_text(encoding="utf-8")
    assert again == page  # no timestamps: a rerun writes the same bytes


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
    root, _ = run
    data = tmp_path / "texts.csv"
    frame().to_csv(data, index=False)
    out, report = tmp_path / "out", tmp_path / "page.html"
    code = cli.main(
        [
            "test", str(root / "random"), str(data), "--compare", str(root / "flat"),
            "--label-column", "label", "--id-column", "id", "--parser", PARSER,
            "--max-mutants-per-document", "4", "--cache-dir", str(root / "cache"),
            "--out", str(out), "--report", str(report), "--json", str(tmp_path / "s.json"),
        ]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == cli.EXIT_OK, captured.err
    assert "Models on the same mutants" in captured.out and "flat" in captured.out
    assert f"report: {report}" in captured.err and report.is_file()
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["comparison"][0]["significant"] is True


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
