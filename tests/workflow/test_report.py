"""The Snakemake HTML report of the demo, opened in a real headless browser (Debian's Chromium
driven by Selenium through Debian's chromedriver): every registered RQ table and figure is
there with its caption, every figure loads, and screenshots land beside the report."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from browser import chromium

from hinter.layout import RunLayout
from hinter.rq import outputs

pytestmark = pytest.mark.workflow

FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--window-size=1500,1000", "--hide-scrollbars",
)  # fmt: skip


@pytest.fixture(scope="module")
def report(demo_run, run_snakemake, repo) -> Path:
    """``make report`` on the demo run: the report of every output registered for it."""
    path = Path(RunLayout(str(demo_run)).report())
    path.unlink(missing_ok=True)
    proc = run_snakemake(
        "--configfile", str(repo / "config" / "demo.yaml"), "--report", str(path),
        workdir=demo_run.parent.parent, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    assert path.stat().st_size > 0
    return path


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver = chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    session = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    session.set_page_load_timeout(120)
    yield session
    session.quit()


def _open(browser, report: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(report.resolve().as_uri())
    WebDriverWait(browser, 60).until(
        lambda b: b.execute_script("return typeof app !== 'undefined' && app !== null")
    )


def _click(browser, element) -> None:
    """Click as a reader does; if the report's side bar is still sliding over the element
    (a transient overlay), click it through the page's own script instead."""
    from selenium.common.exceptions import ElementClickInterceptedException

    try:
        element.click()
    except ElementClickInterceptedException:
        browser.execute_script("arguments[0].scrollIntoView(); arguments[0].click();", element)


def _literal(text: str) -> str:
    """``text`` as an XPath 1.0 string literal (which has no escapes: labels hold apostrophes,
    as in "the original artifact's condition")."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    parts = ', "\'", '.join(f"'{p}'" for p in text.split("'"))
    return f"concat({parts})"


def _click_text(browser, text: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    xpath = f"//nav//*[normalize-space(text())={_literal(text)}]"
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.XPATH, xpath))
    _click(browser, browser.find_element(By.XPATH, xpath))


def _row(browser, label: str):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    xpath = f"//nav//tbody/tr[td[normalize-space(text())={_literal(label)}]]"
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.XPATH, xpath))
    return browser.find_element(By.XPATH, xpath)


def _show(browser, output: outputs.Output) -> None:
    """Navigate the report as a reader does: Results, the RQ, its subcategory, the entry's
    view button, then its info button (the caption in the side bar beside the view)."""
    from selenium.webdriver.common.by import By

    browser.execute_script("app.setView({navbarMode: 'menu'})")
    _click_text(browser, "Results")
    _click_text(browser, output.category)
    subcategories = browser.execute_script(
        "return Object.keys(categories[arguments[0]])", output.category
    )
    if len(subcategories) > 1:
        _click_text(browser, output.subcategory)
    row = _row(browser, output.labels["output"])
    _click(browser, row.find_element(By.CSS_SELECTOR, "a[iconname=eye]"))
    row = _row(browser, output.labels["output"])
    _click(browser, row.find_element(By.CSS_SELECTOR, "a[iconname=information-circle]"))


LOADED_IMAGE = """
const img = document.querySelector('img[src^="data:image/png"]');
return img && img.complete ? [img.naturalWidth, img.naturalHeight] : null;
"""


def test_the_report_shows_every_rq_output_with_its_caption(report, browser, demo_run):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    _open(browser, report)
    layout = RunLayout(str(demo_run))
    results = browser.execute_script("return results")
    categories = browser.execute_script("return categories")
    # every output of the registry, whatever is registered when the test runs: RQ1-RQ6 and
    # the paper comparison (rq = PAPER)
    registered = [o for rq in sorted(outputs.OUTPUTS) for o in outputs.outputs(rq, part=None)]
    assert {o.category for o in registered} >= {"RQ1", "Paper"}
    by_file = {Path(path).name: entry for path, entry in results.items()}
    # ... and nothing else: every RQ or paper entry of the report is a registered output
    shown = {f"{o.name}.{o.shown}" for o in registered}
    rq_dirs = {Path(layout.rq_dir(rq)).name for rq in outputs.OUTPUTS}
    unregistered = [Path(p).name for p in results if Path(p).parent.name in rq_dirs]
    assert set(unregistered) <= shown, sorted(set(unregistered) - shown)
    for output in registered:
        shown = f"{output.name}.{output.shown}"
        assert shown in by_file, f"{shown} is not in the report"
        entry = by_file[shown]
        assert entry["labels"] == output.labels
        assert "demo" in entry["caption"] and len(entry["caption"]) > 200, output.name
        in_category = categories[output.category][output.subcategory]
        assert any(Path(p).name == shown for p in in_category), (output.name, in_category)
    assert "14.61" in by_file["table3.html"]["caption"]  # the paper's number is quoted

    for output in registered:
        _show(browser, output)
        if output.kind == outputs.FIGURE:
            size = WebDriverWait(browser, 30).until(lambda b: b.execute_script(LOADED_IMAGE))
            assert size[0] > 0 and size[1] > 0, output.name
        else:
            frame = WebDriverWait(browser, 30).until(
                lambda b: b.find_elements(By.CSS_SELECTOR, "iframe")
            )[0]
            browser.switch_to.frame(frame)
            try:
                heading = browser.find_element(By.TAG_NAME, "h1").text
                assert heading, output.name
                if not browser.find_elements(By.TAG_NAME, "table"):
                    # an examples table may rightly be empty (the demo's SmolLM2 shows no N=3
                    # hidden bias): then the page says so and the CSV holds no rows
                    text = browser.find_element(By.TAG_NAME, "body").text
                    assert "was found." in text, output.name
                    csv = Path(layout.rq_dir(output.rq)) / f"{output.name}.csv"
                    assert len(csv.read_text().splitlines()) == 1, output.name
                if output.category == "Paper":  # the paper's numbers beside the run's
                    text = browser.find_element(By.TAG_NAME, "body").text
                    assert "14.61" in text and "16.62" in text and "not run" in text
                    assert "config/demo.yaml" in text, "the run's config is named"
            finally:
                browser.switch_to.default_content()
        nav = browser.find_element(By.TAG_NAME, "nav").text
        assert output.labels["output"] in nav and "demo" in nav, output.name
        if output.kind == outputs.FIGURE or output.name == "table3":
            assert browser.save_screenshot(layout.report_screenshot(output.name))

    # the RQ1 list of results beside Fig. 4, for a reader's first look
    browser.execute_script("app.setView({navbarMode: 'menu'})")
    _click_text(browser, "Results")
    _click_text(browser, "RQ1")
    _click_text(browser, "Error rates")
    fig4 = outputs.get(1, "fig4").labels["output"]
    _click(browser, _row(browser, fig4).find_element(By.CSS_SELECTOR, "a[iconname=eye]"))
    WebDriverWait(browser, 30).until(lambda b: b.execute_script(LOADED_IMAGE))
    assert browser.save_screenshot(layout.report_screenshot("rq1"))
    for name in ("rq1", "table3", *outputs.names(1, outputs.FIGURE)):
        assert Path(layout.report_screenshot(name)).stat().st_size > 10_000, name


def test_without_chromium_and_root_the_test_is_skipped_saying_why(monkeypatch):
    monkeypatch.setattr(
        shutil, "which", lambda name: "/usr/bin/apt-get" if name == "apt-get" else None
    )
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(
        pytest.skip.Exception, match="sudo apt-get install -y chromium chromium-driver"
    ):
        chromium()
