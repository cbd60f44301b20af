"""Catalogue rows: the workflow's start-up checks, through ``hinter check-config``."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from cli_inputs import copy_model

from .cases import (
    REPO,
    Case,
    W,
    assert_one_line_before_any_work,
    auto_map,
    both,
    readonly,
)


def _config(text: str) -> Callable[[W], None]:
    def setup(w: W) -> None:
        (w.root / "override.yaml").write_text(text.replace("{root}", str(w.root)), encoding="utf-8")

    return setup


def check_config(*files: str) -> Callable[[W], list[str]]:
    """``hinter check-config`` on the demo config merged with ``override.yaml``."""

    def argv(w: W) -> list[str]:
        names = [str(REPO / "config" / "demo.yaml"), str(w.root / "override.yaml")]
        return ["check-config", *(f.replace("{root}", str(w.root)) for f in files or names)]

    return argv


def _finetuned_with_auto_map(w: W) -> None:
    folder = copy_model(w.model, w.root / "custom")
    auto_map("config.json")(folder)


CASES = [
    Case(
        "config-yaml-syntax-error",
        1,
        r"override\.yaml:3: invalid YAML",
        check_config(),
        setup=_config("run_name: x\ndatasets: [imdb\nseed: 1\n"),
    ),
    Case(
        "config-top-level-list",
        1,
        r"override\.yaml: a config file must be a mapping of keys",
        check_config(),
        setup=_config("- a\n- b\n"),
    ),
    Case(
        "config-file-missing",
        1,
        r"nowhere\.yaml: config file not found",
        check_config("{root}/nowhere.yaml"),
    ),
    Case(
        "config-demo-sentences-reversed",
        1,
        r"config key 'data\.demo\.sentences': \[min, max\] expected, got \[7, 3\]",
        check_config(),
        setup=_config("data: {demo: {sentences: [7, 3]}}\n"),
    ),
    Case(
        "config-parser-not-installed",
        1,
        r"config key 'parser\.pipeline': spaCy pipeline 'en_core_web_zz' is not installed",
        check_config(),
        setup=_config("parser: {pipeline: en_core_web_zz}\n"),
    ),
    Case(
        "config-parser-folder-missing",
        1,
        r"config key 'parser\.pipeline': pipeline folder .*nope not found",
        check_config(),
        setup=_config("parser: {pipeline: {root}/nope}\n"),
    ),
    Case(
        "config-finetuned-folder-missing",
        1,
        r"config key 'models\.encoders\.mine\.checkpoint': model folder .*gone not found",
        check_config(),
        setup=_config(
            "models: {encoders: {mine: {init: finetuned, checkpoint: {root}/gone,"
            " datasets: [imdb]}}}\n"
        ),
    ),
    Case(
        "config-finetuned-folder-remote-code",
        1,
        r"config key 'models\.encoders\.mine\.checkpoint': .*declares custom code",
        check_config(),
        setup=both(
            _finetuned_with_auto_map,
            _config(
                "models: {encoders: {mine: {init: finetuned, checkpoint: {root}/custom,"
                " datasets: [imdb]}}}\n"
            ),
        ),
    ),
    # review 2026-11-28 P9: what failed minutes into a run after check-config said "valid"
    Case(
        "config-track-tokenizer-on-the-hub-offline",
        1,
        r"config key 'mutation\.tracks\.encoder\.tokenizer': tokenizer "
        r"'hinter-tests/absent-tok' is on the HuggingFace hub, which is unreachable offline",
        check_config(),
        setup=_config("mutation: {tracks: {encoder: {tokenizer: hinter-tests/absent-tok}}}\n"),
    ),
    Case(
        "config-model-name-is-a-path",
        1,
        r"config key 'models\.encoders\.bad name/x': 'bad name/x' is not a valid name",
        check_config(),
        setup=_config("models: {encoders: {'bad name/x': {checkpoint: x, datasets: [imdb]}}}\n"),
    ),
    Case(
        "config-track-name-is-a-path",
        1,
        r"config key 'mutation\.tracks\.a/b': 'a/b' is not a valid name",
        check_config(),
        setup=_config("mutation: {tracks: {a/b: {tokenizer: words, max_tokens: 5}}}\n"),
    ),
    Case(
        "config-max-mutants-0",
        1,
        r"config key 'mutation\.max_mutants_per_document': 0 would keep nothing",
        check_config(),
        setup=_config("mutation: {max_mutants_per_document: 0}\n"),
    ),
    Case(
        "config-max-documents-0",
        1,
        r"config key 'data\.max_documents': 0 would keep nothing",
        check_config(),
        setup=_config("data: {max_documents: 0}\n"),
    ),
    Case(
        "config-threshold-2",
        1,
        r"config key 'oracle\.confidence_threshold': 2 is greater than the maximum",
        check_config(),
        setup=_config("oracle: {confidence_threshold: 2}\n"),
    ),
    Case(
        "config-orders-beyond-attributes",
        1,
        r"config key 'mutation\.orders': order 4 needs 4 attributes",
        check_config(),
        setup=_config("mutation: {orders: [1, 4]}\n"),
    ),
    Case(
        "config-unknown-key",
        1,
        r"config key 'mutaton': unknown key",
        check_config(),
        setup=_config("mutaton: {}\n"),
    ),
    Case(
        "config-unknown-dataset",
        1,
        r"config key 'datasets': unknown dataset 'sst2'",
        check_config(),
        setup=_config("datasets: [sst2]\n"),
    ),
    Case(
        "config-results-dir-is-a-file",
        1,
        r"config key 'results_dir': .*afile is a file",
        check_config(),
        setup=both(
            lambda w: (w.root / "afile").write_text("x"), _config("results_dir: {root}/afile\n")
        ),
    ),
    # review 2026-11-25: names, sizes, YAML (C04-C08, C10, C11, C13, D04, L22, L23)
    Case(
        "config-name-trailing-newline",
        1,
        r"config key 'run_name': 'demo\\n' does not match",
        check_config(),
        setup=_config('run_name: "demo\\n"\n'),
    ),
    Case(
        "config-model-name-newline",
        1,
        r"config key 'models\.llms\.gpt\\n': 'gpt\\n' is not a valid name",
        check_config(),
        setup=_config('models: {llms: {"gpt\\n": {backend: openai, model: m, tokenizer: t}}}\n'),
    ),
    Case(
        "config-attribute-name-with-dot",
        1,
        r"config key 'dictionary\.custom\.re\.ligion': 're\.ligion' is not a valid name "
        r"\(letters, digits, '_', '-',",
        check_config(),
        setup=_config("dictionary: {custom: {re.ligion: {pairs: p.csv}}}\n"),
    ),
    Case(
        "config-shards-over-999",
        1,
        r"config key 'mutation\.default_shards': 1001 is greater than the maximum of 999",
        check_config(),
        setup=_config("mutation: {default_shards: 1001}\n"),
    ),
    Case(
        "config-runs-huge",
        1,
        r"config key 'sensitivity\.runs': 1000000 is greater than the maximum of 100",
        check_config(),
        setup=_config("sensitivity: {runs: 1000000}\n"),
    ),
    Case(
        "config-plan-too-large",
        1,
        r"config: the plan has over 100000 jobs",
        check_config(),
        setup=_config("mutation: {default_shards: 999}\nsensitivity: {runs: 100}\n"),
    ),
    Case(
        "config-timeout-infinite",
        1,
        r"config key 'models\.llms\.gpt\.timeout': inf is greater than the maximum of 3600",
        check_config(),
        setup=_config(
            "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "
            "timeout: .inf}}}\n"
        ),
    ),
    Case(
        "config-concurrency-huge",
        1,
        r"config key 'models\.llms\.gpt\.concurrency': 1000000 is greater than the maximum",
        check_config(),
        setup=_config(
            "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "
            "concurrency: 1000000}}}\n"
        ),
    ),
    Case(
        "config-api-key-env-empty",
        1,
        r"config key 'models\.llms\.gpt\.api_key_env': '' does not match",
        check_config(),
        setup=_config(
            "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "
            "api_key_env: ''}}}\n"
        ),
    ),
    Case(
        "config-base-url-not-a-url",
        1,
        r"config key 'models\.llms\.gpt\.base_url': 'notaurl' does not match",
        check_config(),
        setup=_config(
            "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "
            "base_url: notaurl}}}\n"
        ),
    ),
    Case(
        "config-grammar-unknown-model",
        1,
        r"config key 'grammar\.models': unknown model 'nosuchmodel'",
        check_config(),
        setup=_config("grammar: {models: [nosuchmodel]}\n"),
    ),
    Case(
        "config-duplicate-key",
        1,
        r"override\.yaml:3: invalid YAML \(duplicate key 'seed' \(first on line 2\)\)",
        check_config(),
        setup=_config("datasets: [imdb]\nseed: 7\nseed: 8\n"),
    ),
    Case(
        "config-alias-bomb",
        1,
        r"override\.yaml:4: YAML alias \*a0 is not supported",
        check_config(),
        setup=_config(
            "models:\n  encoders: {}\n  x: &a0 [x, x, x, x, x, x, x, x, x]\n"
            + "".join(f"  y{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10))
        ),
    ),
    Case(
        "config-custom-pairs-too-many",
        1,
        r"config key 'dictionary\.custom\.faith\.pairings': 18,000,000 directed pairs",
        check_config(),
        setup=both(
            lambda w: (w.root / "a.txt").write_text("".join(f"alpha{i}\n" for i in range(3000))),
            lambda w: (w.root / "b.txt").write_text("".join(f"beta{i}\n" for i in range(3000))),
            _config(
                "dictionary: {custom: {faith: {classes: {a: '{root}/a.txt', b: '{root}/b.txt'}, "
                "pairings: [[a, b], [b, a]]}}}\n"
            ),
        ),
    ),
    Case(
        "config-cache-dir-read-only",
        1,
        r"config key 'cache_dir': .*ro is not writable",
        check_config(),
        setup=both(readonly(lambda w: w.root / "ro"), _config("cache_dir: {root}/ro\n")),
        needs="readonly",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_before_any_work(case: Case, workspace: W, tiny_model, capsys):
    assert_one_line_before_any_work(case, workspace, tiny_model, capsys)


def test_an_alias_bomb_loaded_by_snakemake_is_refused_at_once():
    """C06 through the Snakefile: Snakemake's loader expands aliases into shared objects, which
    validation refuses before any walk (9 levels of 9: 387 million paths)."""
    import time

    import yaml

    from hinter.config import REPO_ROOT, ConfigError, load_yaml, validate_config

    text = "lol0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"lol{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10)
    )
    config = load_yaml(REPO_ROOT / "config" / "demo.yaml")
    config["models"]["encoders"]["bomb"] = {"size": yaml.safe_load(text)}
    start = time.monotonic()
    with pytest.raises(ConfigError, match=r"models\.encoders\.bomb\.size\.lol1\.0': a repeated"):
        validate_config(config)
    assert time.monotonic() - start < 5
