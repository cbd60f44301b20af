"""Custom attributes: added or replaced from the config, and every bad input a one-line error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hinter.config import REPO_ROOT, load_yaml, validate_config
from hinter.dictionary.custom import check_custom_config, dictionary_files, load_custom
from hinter.dictionary.pairs import compile_dictionary, pair_id, write_compiled
from hinter.errors import ConfigError, DataError

RESOURCES = REPO_ROOT / "resources" / "dictionary"


def write(tmp_path: Path, name: str, text: str | bytes) -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return name


@pytest.fixture
def religion(tmp_path):
    return {
        "classes": {
            "christian": write(tmp_path, "lists/christian.txt", "term\nChristian\nchurchgoer\n"),
            "muslim": write(tmp_path, "lists/muslim.txt", "muslim\r\nmosque-goer\r\n"),
            "jewish": write(tmp_path, "lists/jewish.txt", "jew\n"),
        },
        "pairings": [["christian", "muslim"], ["muslim", "christian"], ["christian", "jewish"]],
    }


def test_class_lists_give_the_cross_product_of_each_pairing(tmp_path, religion):
    compiled = compile_dictionary(
        ["religion"], RESOURCES, custom={"religion": religion}, base_dir=tmp_path
    )
    rows = compiled.table.to_pylist()
    # a custom term's canonical form is as written ("Christian"; "muslim" as its list has it)
    assert {(r["source"], r["target"]) for r in rows} == {
        ("Christian", "muslim"),
        ("Christian", "mosque-goer"),
        ("churchgoer", "muslim"),
        ("churchgoer", "mosque-goer"),
        ("muslim", "Christian"),
        ("muslim", "churchgoer"),
        ("mosque-goer", "Christian"),
        ("mosque-goer", "churchgoer"),
        ("Christian", "jew"),
        ("churchgoer", "jew"),
    }
    row = next(r for r in rows if r["source"] == "Christian" and r["target"] == "jew")
    assert row["source_class"] == "christian" and row["target_class"] == "jewish"
    assert row["provenance"] == "custom:religion:christian>jewish"
    assert row["pair_id"] == pair_id("religion", "Christian", "jew")
    # Both modes agree for a class-only attribute (there is no published subset).
    complete = compile_dictionary(
        ["religion"], RESOURCES, "complete", custom={"religion": religion}, base_dir=tmp_path
    )
    assert complete.table.equals(compiled.table)


def test_pairs_file_and_mixing_with_builtins(tmp_path):
    age = {"pairs": write(tmp_path, "age.csv", "old man;young man\nelderly;young\n")}
    compiled = compile_dictionary(
        ["race", "age"], RESOURCES, custom={"age": age}, base_dir=tmp_path
    )
    age_rows = [r for r in compiled.table.to_pylist() if r["attribute"] == "age"]
    assert [(r["source"], r["target"], r["source_class"]) for r in age_rows] == [
        ("elderly", "young", None),
        ("old man", "young man", None),
    ]
    assert age_rows[1]["provenance"] == "custom:age.csv:1"
    assert {s.attribute: s.pairs for s in compiled.stats} == {"race": 3996, "age": 2}


def test_custom_replaces_a_builtin_attribute(tmp_path):
    gender = {
        "pairs": write(
            tmp_path,
            "gender.tsv",
            "source\ttarget\tsource_class\ttarget_class\nwoman\tman\tf\tm\nman\twoman\tm\tf\n",
        )
    }
    compiled = compile_dictionary(
        ["gender"], RESOURCES, custom={"gender": gender}, base_dir=tmp_path
    )
    assert [(r["source"], r["target"], r["source_class"]) for r in compiled.table.to_pylist()] == [
        ("man", "woman", "m"),
        ("woman", "man", "f"),
    ]
    assert dictionary_files(["gender", "race"], RESOURCES, {"gender": gender}, tmp_path) == [
        str(tmp_path / "gender.tsv"),
        *(
            str(RESOURCES / n)
            for n in (
                "pairings.tsv",
                "race.classes.tsv",
                "race.tsv",
                "ambiguous.tsv",
                "spelling.tsv",
            )
        ),
    ]


def test_pairs_with_classes_as_published_vs_complete(tmp_path):
    spec = {
        "classes": {
            "young": write(tmp_path, "young.txt", "young people\nteenagers\n"),
            "old": write(tmp_path, "old.txt", "old people\nseniors\n"),
        },
        "pairings": [["young", "old"]],
        "pairs": write(tmp_path, "age.tsv", "source\ttarget\nyoung people\told people\n"),
    }
    published = compile_dictionary(["age"], RESOURCES, custom={"age": spec}, base_dir=tmp_path)
    assert [
        (r["source"], r["source_class"], r["target_class"]) for r in published.table.to_pylist()
    ] == [
        ("young people", "young", "old")  # classes inferred from the class lists
    ]
    complete = compile_dictionary(
        ["age"], RESOURCES, "complete", custom={"age": spec}, base_dir=tmp_path
    )
    assert complete.table.num_rows == 4
    listed = {(r["source"], r["target"]): r["provenance"] for r in complete.table.to_pylist()}
    assert listed[("young people", "old people")] == "custom:age.tsv:2"
    assert listed[("teenagers", "seniors")] == "custom:age:young>old"


def test_custom_config_validates_through_the_schema(tmp_path):
    cfg = load_yaml(REPO_ROOT / "config" / "demo.yaml")
    cfg["attributes"] = ["race", "gender", "religion"]
    cfg["dictionary"]["custom"] = {"religion": {"pairs": "x.tsv"}}
    with pytest.raises(ConfigError, match=r"religion\.pairs': file not found: x\.tsv"):
        validate_config(cfg, base_dir=tmp_path)  # declared files are checked at start-up
    write(tmp_path, "x.tsv", "source\ttarget\nchristian\tmuslim\n")
    validated = validate_config(cfg, base_dir=tmp_path)
    assert validated["dictionary"]["custom"]["religion"] == {"pairs": "x.tsv"}
    cfg["dictionary"]["custom"] = {"religion": {"pairs": "x.tsv", "colour": "red"}}
    with pytest.raises(ConfigError, match=r"dictionary\.custom\.religion\.colour"):
        validate_config(cfg, base_dir=tmp_path)


# --- every bad input: one line, naming the file and line (or the config key) ------------------


def _error(exc_type, tmp_path, spec, name="religion"):
    with pytest.raises(exc_type) as info:
        load_custom(name, spec, tmp_path)
    message = str(info.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("spec", "pattern"),
    [
        ({}, "dictionary.custom.religion': declare 'classes' with 'pairings', or 'pairs'"),
        (
            {"classes": {"a": "a.txt"}},
            "dictionary.custom.religion.pairings': required with 'classes'",
        ),
        (
            {"pairings": [["a", "b"]], "pairs": "p.tsv"},
            "religion.classes': required with 'pairings'",
        ),
        (
            {"classes": {"a": "a.txt", "b": "b.txt"}, "pairings": [["a", "c"]]},
            "religion.pairings.0': unknown class 'c' (declared: a, b)",
        ),
        (
            {"classes": {"a": "a.txt", "b": "b.txt"}, "pairings": [["a", "b"], ["a", "a"]]},
            "religion.pairings.1': pairs class 'a' with itself",
        ),
        (
            {"classes": {"a": "a.txt", "b": "b.txt"}, "pairings": [["a", "b"], ["a", "b"]]},
            "religion.pairings.1': duplicate pairing a -> b",
        ),
        (
            {"classes": {"a": "a.txt", "b": "missing.txt"}, "pairings": [["a", "b"]]},
            "religion.classes.b': file not found: missing.txt",
        ),
    ],
)
def test_declaration_errors_name_the_config_key(tmp_path, spec, pattern):
    write(tmp_path, "a.txt", "alpha\n")
    write(tmp_path, "b.txt", "beta\n")
    write(tmp_path, "p.tsv", "alpha\tbeta\n")
    message = _error(ConfigError, tmp_path, spec)
    assert pattern in message, message
    with pytest.raises(ConfigError):
        check_custom_config({"religion": spec}, tmp_path)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("christian\n\nbaptist\n", r"christian.txt:2: empty term"),
        (
            "christian\nc++ fans\n",
            r"christian.txt:2: term 'c\+\+ fans' cannot be matched as a whole word",
        ),
        ("#christian\n", r"christian.txt:1: term '#christian' cannot be matched"),
        ("christians.\n", r"christian.txt:1: term 'christians.' cannot be matched"),
        (
            "christian\nbaptist\nChristian\n",
            r"christian.txt:3: duplicate term 'Christian' \(first at line 1\)",
        ),
        ("christian;baptist\n", r"christian.txt:1: expected one term per line, found a separator"),
        (b"christian\ncatholic \xe9\n", r"christian.txt:2: not UTF-8"),
        (
            "muslim\n",
            r"christian.txt:1: term 'muslim' is already in class 'muslim' \(.*muslim.txt:1\)",
        ),
        ("", r"christian.txt: no terms"),
    ],
)
def test_class_file_errors_name_file_and_line(tmp_path, text, pattern):
    spec = {
        "classes": {
            "muslim": write(tmp_path, "muslim.txt", "muslim\n"),
            "christian": write(tmp_path, "christian.txt", text),
        },
        "pairings": [["christian", "muslim"]],
    }
    message = _error(DataError, tmp_path, spec)
    assert re.search(pattern, message), message


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("woman;man\nman;\n", r"pairs.csv:2: target: empty term"),
        ("woman;man\n;man\n", r"pairs.csv:2: source: empty term"),
        ("woman;man\n\nman;woman\n", r"pairs.csv:2: empty line"),
        ("woman;man\nwoman;Woman\n", r"pairs.csv:2: self-pair 'woman' -> 'Woman'"),
        (
            "woman;man\nman;woman\nWoman ; man\n",
            r"pairs.csv:3: duplicate pair 'Woman' -> 'man' \(first at line 1\)",
        ),
        ("woman;man;girl\n", r"pairs.csv:1: 3 fields, expected 2"),
        ("woman;(man)\n", r"pairs.csv:1: target: term '\(man\)' cannot be matched as a whole word"),
        (
            "source;target;source_class\nwoman;man;f\n",
            r"pairs.csv:1: give both source_class and target_class",
        ),
        ("source;klass\nwoman;man\n", r"pairs.csv:1: header .* needs 'source' and 'target'"),
    ],
)
def test_pairs_file_errors_name_file_and_line(tmp_path, text, pattern):
    message = _error(DataError, tmp_path, {"pairs": write(tmp_path, "pairs.csv", text)}, "gender")
    assert re.search(pattern, message), message


def test_unknown_classes_in_a_pairs_file(tmp_path):
    spec = {
        "classes": {
            "f": write(tmp_path, "f.txt", "woman\n"),
            "m": write(tmp_path, "m.txt", "man\n"),
        },
        "pairings": [["f", "m"]],
        "pairs": write(
            tmp_path, "p.tsv", "source\ttarget\tsource_class\ttarget_class\nwoman\tman\tf\tx\n"
        ),
    }
    message = _error(DataError, tmp_path, spec, "gender")
    assert (
        "p.tsv:2: unknown class 'x' (declared in dictionary.custom.gender.classes: f, m)" in message
    )
    write(tmp_path, "p.tsv", "source\ttarget\tsource_class\ttarget_class\nman\twoman\tm\tf\n")
    message = _error(DataError, tmp_path, spec, "gender")
    assert (
        "p.tsv:2: class pairing m -> f is not declared in dictionary.custom.gender.pairings"
        in message
    )


def test_an_error_leaves_no_output(tmp_path):
    spec = {"pairs": write(tmp_path, "pairs.csv", "woman;man\nman;man\n")}
    out = tmp_path / "out"
    with pytest.raises(DataError):
        write_compiled(
            compile_dictionary(["gender"], RESOURCES, custom={"gender": spec}, base_dir=tmp_path),
            out / "pairs.parquet",
            out / "review.tsv",
        )
    assert not out.exists() or not any(out.iterdir())
