"""Your own datasets in the workflow: files (CSV/TSV/Parquet/JSONL) or a hub id, declared in config.

A user dataset is a mapping in the ``datasets:`` list (the paper's datasets stay plain names)::

    datasets:
      - imdb
      - name: reviews
        files: {train: data/train.csv, test: data/test.csv}   # or hub: {repo, revision, name}
        text: review            # text column (default "text")
        label: sentiment        # label column (default "label")
        labels: [negative, positive]   # label names, or a file with one name per line
        task: single_label      # or multi_label
        prompt: prompts/reviews.yaml   # the LLMs' prompt (resources/prompts format)

:func:`normalise_config` moves each mapping to ``user_datasets.<name>`` and leaves its name in
``datasets``, so every stage after validation sees names only, as for the paper's datasets. The
data stage (:func:`prepare`) writes the same ``<split>.parquet`` + ``meta.json`` as the hub
loader (:mod:`hinter.data`); every row is checked first and nothing is written on an error.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

from hinter import tables
from hinter.errors import ConfigError, DataError, OfflineError, first_line
from hinter.paths import RESOURCES
from hinter.prompt_spec import check_label_names

SPLITS = ("train", "validation", "test")
FORMATS = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".jsonl": "jsonl"}
TASKS = {"single_label": "multi_class", "multi_class": "multi_class", "multi_label": "multi_label"}
FORMAT_FILE = RESOURCES / "prompts" / "format.yaml"


# -- configuration ---------------------------------------------------------------------------


def normalise_config(cfg: dict) -> dict:
    """Move the mappings of ``datasets`` to ``user_datasets.<name>``; names stay in ``datasets``.

    Idempotent (a validated config has names only). A mapping without a usable ``name`` is a
    one-line :class:`ConfigError` naming its position.
    """
    items = cfg.get("datasets")
    if not isinstance(items, list):
        return cfg
    declared = dict(cfg.get("user_datasets") or {})
    names = []
    for i, item in enumerate(items):
        if isinstance(item, Mapping):
            name = item.get("name")
            if not isinstance(name, str) or not name:
                raise ConfigError(f"config key 'datasets.{i}.name': a user dataset needs a name")
            if name in declared:
                raise ConfigError(f"config key 'datasets.{i}': dataset {name!r} declared twice")
            declared[name] = {k: v for k, v in item.items() if k != "name"}
            names.append(name)
        else:
            names.append(item)
    cfg["datasets"] = names
    if declared:
        cfg["user_datasets"] = declared
    return cfg


def declared(cfg: Mapping[str, Any], dataset: str) -> Mapping[str, Any] | None:
    """The declaration of ``dataset`` when it is a user dataset, else None."""
    return (cfg.get("user_datasets") or {}).get(dataset)


def resolve(path: str, base_dir: str | Path) -> Path:
    """A configured path: absolute, ``~``, or relative to ``base_dir`` (the repository)."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else Path(base_dir) / p


def file_format(path: str | Path, key: str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ConfigError(
            f"config key '{key}': {path}: unknown file type {suffix or '(none)'!r} "
            f"(use {', '.join(FORMATS)})"
        )
    return FORMATS[suffix]


def _label_file(path: Path, column: str) -> list[str]:
    """Names from a file: one per line, or a TSV with a header (``resources/labels/*.tsv``:
    ``hub_name<TAB>display_name``, where ``-`` marks a display-only name, which is skipped)."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not lines or "\t" not in lines[0]:
        return [line.strip() for line in lines]
    header = [c.strip() for c in lines[0].split("\t")]
    index = header.index(column) if column in header else 0
    rows = [[c.strip() for c in line.split("\t")] for line in lines[1:]]
    return [r[index] for r in rows if len(r) > index and r[0] != "-"]


def label_names(
    spec: Mapping[str, Any], base_dir: str | Path, key: str, column: str = "hub_name"
) -> list[str]:
    """The label names: a list, or a file (one name per line, or a labels TSV's ``column``)."""
    value = spec["labels"]
    if isinstance(value, str):
        path = resolve(value, base_dir)
        if not path.is_file():
            raise ConfigError(f"config key '{key}.labels': label file {value} not found")
        value = _label_file(path, column)
    names = [str(v) for v in value]
    if not names:
        raise ConfigError(f"config key '{key}.labels': no label names")
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ConfigError(f"config key '{key}.labels': label {dup[0]!r} listed twice")
    check_label_names(names, f"config key '{key}.labels'")  # equal up to case: N22
    return names


def _columns(path: Path, fmt: str, sep: str | None) -> list[str]:
    """The column names of a file, read from its header only (cheap at start-up)."""
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return list(pq.read_schema(path).names)
    if fmt == "jsonl":
        import json

        with path.open(encoding="utf-8") as fh:
            first = fh.readline()
        row = json.loads(first) if first.strip() else {}
        if not isinstance(row, dict):
            raise ValueError("the first line is not a JSON object")
        return list(row)
    import csv

    with path.open(encoding="utf-8", newline="") as fh:  # the header as written (no renaming)
        return next(csv.reader(fh, delimiter=sep or ","), [])


def _sep(fmt: str) -> str | None:
    return "\t" if fmt == "tsv" else ","


def check_config(cfg: Mapping[str, Any], base_dir: str | Path) -> None:
    """:func:`check_declarations` for a validated config: which user datasets an LLM prompts
    (few-shot examples from train) and which an encoder is fine-tuned on (a train split)."""
    models = cfg["models"]
    llm_datasets = {ds for spec in models["llms"].values() for ds in spec["datasets"]}
    trained = {  # fine-tuned here: a train split is needed (a finetuned encoder is only tested)
        ds for spec in models["encoders"].values() if spec["init"] != "finetuned"
        for ds in spec["datasets"]
    }  # fmt: skip
    tested = set(cfg["datasets"])
    check_declarations(cfg, base_dir, llm_datasets & tested, trained & tested)


def check_declarations(
    cfg: Mapping[str, Any], base_dir: str | Path, llm_datasets=(), trained_datasets=()
) -> None:
    """Start-up checks of every user dataset: files, columns, labels, prompt; one line each.

    ``llm_datasets`` need a prompt file and (for the few-shot examples) a train split;
    ``trained_datasets``, those an encoder is fine-tuned on, need a train split.
    """
    for name, spec in (cfg.get("user_datasets") or {}).items():
        key = f"user_datasets.{name}"
        has_files, has_hub = bool(spec.get("files")), bool(spec.get("hub"))
        if has_files == has_hub:
            raise ConfigError(f"config key '{key}': give either files or hub (exactly one)")
        label_names(spec, base_dir, key)
        if spec.get("display_names") is not None:
            shown = label_names({"labels": spec["display_names"]}, base_dir, key, "display_name")
            if len(shown) != len(label_names(spec, base_dir, key)):
                raise ConfigError(
                    f"config key '{key}.display_names': {len(shown)} names for "
                    f"{len(label_names(spec, base_dir, key))} labels"
                )
        if has_files:
            files = spec["files"]
            if "test" not in files and not spec.get("holdout"):
                raise ConfigError(
                    f"config key '{key}.files.test': required (or a holdout from train)"
                )
            if spec.get("holdout") and "train" not in files:
                raise ConfigError(f"config key '{key}.holdout': needs files.train to draw from")
            if "train" not in files:
                why = (
                    "an encoder is fine-tuned on it" if name in trained_datasets
                    else "an LLM's few-shot examples are train rows" if name in llm_datasets
                    else None
                )  # fmt: skip
                if why:
                    raise ConfigError(f"config key '{key}.files.train': required ({why})")
            for split, value in files.items():
                fkey = f"{key}.files.{split}"
                fmt = file_format(value, fkey)
                path = resolve(value, base_dir)
                run_dir = resolve(str(cfg.get("results_dir") or "results"), base_dir).resolve()
                run_dir = run_dir / str(cfg.get("run_name") or "")
                if run_dir in path.resolve().parents:  # the data stage would write over it
                    raise ConfigError(
                        f"config key '{fkey}': {value} is inside the run's results folder "
                        f"{run_dir}, which the workflow writes; move the file out"
                    )
                if not path.exists():
                    raise ConfigError(f"config key '{fkey}': file {value} not found")
                if not path.is_file():  # a FIFO or a device would block or never end
                    raise ConfigError(f"config key '{fkey}': {value} is not a regular file")
                try:
                    columns = _columns(path, fmt, _sep(fmt))
                except Exception as exc:
                    raise ConfigError(
                        f"config key '{fkey}': {value}: unreadable {fmt} ({first_line(exc)})"
                    ) from None
                twice = sorted({str(c) for c in columns if columns.count(c) > 1})
                if twice:  # pandas would rename the second one and read the first silently
                    raise ConfigError(
                        f"config key '{fkey}': {value}: column {twice[0]!r} appears twice"
                    )
                for what in ("text", "label"):
                    if spec[what] not in columns:
                        raise ConfigError(
                            f"config key '{key}.{what}': column {spec[what]!r} not in {value} "
                            f"(columns: {', '.join(map(str, columns[:12]))})"
                        )
        check_fewshot(spec, base_dir, key)
        if name in llm_datasets:
            if prompt_file(name, spec, base_dir) is None:
                raise ConfigError(
                    f"config key '{key}.prompt': an LLM tests {name}; give its prompt file "
                    "(resources/prompts format)"
                )
            templates = check_prompt(name, spec, base_dir, key)
            sens = cfg.get("sensitivity") or {}
            if name in (sens.get("datasets") or []):
                for template in sens.get("prompts") or []:
                    if template not in templates:
                        raise ConfigError(
                            f"config key 'sensitivity.prompts': {name}'s prompt file has no "
                            f"template {template!r} (known: {', '.join(templates)})"
                        )


def check_fewshot(spec: Mapping[str, Any], base_dir: str | Path, key: str) -> None:
    """The named few-shot examples (``fewshot``): as many as a prompt has, each a readable text
    file with known label names, or a train row id (checked against the split at load)."""
    from hinter.prompt_spec import N_EXAMPLES

    items = spec.get("fewshot")
    if items is None:
        return
    if len(items) != N_EXAMPLES:
        raise ConfigError(
            f"config key '{key}.fewshot': {len(items)} examples; a prompt has {N_EXAMPLES}"
        )
    names = label_names(spec, base_dir, key)
    for i, item in enumerate(items):
        ikey = f"{key}.fewshot.{i}"
        if ("file" in item) == ("id" in item):
            raise ConfigError(f"config key '{ikey}': give either file (with label) or id")
        if "id" in item:
            if "label" in item:
                raise ConfigError(f"config key '{ikey}.label': an id takes its row's labels")
            continue
        if "label" not in item:
            raise ConfigError(f"config key '{ikey}.label': a few-shot file needs its label")
        path = resolve(item["file"], base_dir)
        if not path.is_file():
            raise ConfigError(f"config key '{ikey}.file': file {item['file']} not found")
        for label in str(item["label"]).split(spec["label_separator"]):
            if label.strip() not in names:
                raise ConfigError(
                    f"config key '{ikey}.label': {label.strip()!r} is not one of the labels "
                    f"({', '.join(names[:12])})"
                )


def fewshot_record(
    spec: Mapping[str, Any], train: pa.Table, names: list[str], base_dir: str | Path, where: str
) -> list[dict] | None:
    """The named few-shot examples as ``meta.json`` records (doc_id, text, labels, source): a
    file's text byte for byte (never added to a split: the encoders train on the split as
    given), a train row's by its id (a missing id is a :class:`DataError`)."""
    items = spec.get("fewshot")
    if items is None:
        return None
    ids = train.column("doc_id").to_pylist()
    out = []
    for i, item in enumerate(items):
        if "id" in item:
            if item["id"] not in ids:
                raise DataError(
                    f"{where}: few-shot id {item['id']!r} is not a row of the train split "
                    f"({len(ids)} rows, ids train-000000…)"
                )
            row = ids.index(item["id"])
            out.append(
                {
                    "doc_id": item["id"],
                    "text": train.column("text")[row].as_py(),
                    "labels": train.column("labels")[row].as_py(),
                    "source": f"train row {item['id']}",
                }
            )
            continue
        path = resolve(item["file"], base_dir)
        text = path.read_bytes().decode("utf-8")
        if not text.strip():
            raise DataError(f"{item['file']}: a few-shot example has no text")
        labels = [names.index(x.strip()) for x in str(item["label"]).split(spec["label_separator"])]
        out.append(
            {"doc_id": f"fewshot-{i}", "text": text, "labels": sorted(labels),
             "source": str(item["file"])}
        )  # fmt: skip
    return out


def prompt_file(name: str, spec: Mapping[str, Any], base_dir: str | Path) -> Path | None:
    """The user's prompt file; a user dataset named like a paper dataset defaults to its prompt."""
    if spec.get("prompt"):
        return resolve(spec["prompt"], base_dir)
    paper = RESOURCES / "prompts" / f"{name}.yaml"
    return paper if paper.is_file() else None


def prompt_folder(name: str, source: Path, folder: Path) -> Path:
    """A prompts folder holding ``<name>.yaml`` (the user's file) and the shared format.yaml."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, folder / f"{name}.yaml")
    shutil.copyfile(FORMAT_FILE, folder / "format.yaml")
    return folder


def check_prompt(name: str, spec: Mapping[str, Any], base_dir: str | Path, key: str) -> list[str]:
    """Parse the user's prompt file as the LLM stage will; return its template names."""
    from hinter.prompt_spec import load_prompt_spec

    source = prompt_file(name, spec, base_dir)
    if source is None or not source.is_file():
        raise ConfigError(f"config key '{key}.prompt': prompt file {spec.get('prompt')} not found")
    with tempfile.TemporaryDirectory() as tmp:
        folder = prompt_folder(name, source, Path(tmp))
        try:
            parsed = load_prompt_spec(name, folder)
        except ConfigError as exc:
            raise ConfigError(f"config key '{key}.prompt': {source}: {exc}") from None
    return list(parsed.templates)


def own_prompt(dataset: str, cfg: Mapping[str, Any], base_dir: str | Path) -> str | None:
    """The user's own prompt file of ``dataset`` (None: the paper's resources/prompts file)."""
    spec = declared(cfg, dataset)
    if spec is None or not spec.get("prompt"):
        return None
    return str(resolve(spec["prompt"], base_dir))


def input_files(dataset: str, cfg: Mapping[str, Any], base_dir: str | Path) -> list[str]:
    """The local files the data stage of a user dataset reads (its prompt included)."""
    spec = declared(cfg, dataset) or {}
    out = [str(resolve(v, base_dir)) for v in (spec.get("files") or {}).values()]
    for key in ("labels", "display_names"):
        if isinstance(spec.get(key), str):
            out.append(str(resolve(spec[key], base_dir)))
    out += [str(resolve(x["file"], base_dir)) for x in spec.get("fewshot") or [] if "file" in x]
    prompt = own_prompt(dataset, cfg, base_dir)
    return out + ([prompt] if prompt else [])


def prompts_dir(dataset: str, prompt: str | Path | None) -> Path | None:
    """The prompts folder of a job on a user dataset with its own prompt file (None: the
    shipped resources/prompts): a temporary folder, removed when the job's process ends, holding
    the user's file as ``<dataset>.yaml`` and the shared format."""
    if prompt is None:
        return None
    import atexit

    folder = Path(tempfile.mkdtemp(prefix="hinter-prompts-"))
    atexit.register(shutil.rmtree, folder, True)
    return prompt_folder(dataset, Path(prompt), folder)


# -- loading ---------------------------------------------------------------------------------


def _read_frame(path: Path, fmt: str):
    import pandas as pd

    try:
        if fmt == "parquet":
            return pd.read_parquet(path)
        if fmt == "jsonl":
            return pd.read_json(path, lines=True, dtype=False)
        return pd.read_csv(path, sep=_sep(fmt), dtype=str, keep_default_na=False)
    except Exception as exc:
        raise DataError(f"{path}: unreadable {fmt} ({first_line(exc)})") from None


def _labels_of(value, names: list[str], multi: bool, sep: str, where: str) -> list[int]:
    """One row's labels as sorted indices: names or integer indices, one or (multi) several."""
    import numpy as np

    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, str) and multi:
        value = [v.strip() for v in value.split(sep) if v.strip()]
    values = value if isinstance(value, list) else [value]
    if not multi and len(values) != 1:
        raise DataError(f"{where}: a single-label dataset needs exactly one label, got {value!r}")
    index = {n: i for i, n in enumerate(names)}
    out = set()
    for v in values:
        if isinstance(v, (bool, np.bool_)) or v is None or (isinstance(v, float) and v != v):
            raise DataError(f"{where}: missing or invalid label {v!r}")
        if isinstance(v, (int, np.integer)) or (isinstance(v, float) and v.is_integer()):
            i = int(v)
        elif isinstance(v, str) and v in index:
            i = index[v]
        elif isinstance(v, str) and v.strip().lstrip("-").isdigit() and v.strip() not in index:
            i = int(v)
        else:
            raise DataError(f"{where}: label {v!r} is not one of the label names")
        if not 0 <= i < len(names):
            raise DataError(f"{where}: label {v!r} outside 0..{len(names) - 1}")
        out.add(i)
    return sorted(out)


def _split_table(
    frame, spec: Mapping[str, Any], names: list[str], split: str, where: str, csv: bool
):
    """The documents table of one split; a bad row is named (0-based, and its CSV line)."""
    multi = TASKS[spec["task"]] == "multi_label"
    texts, labels = [], []
    pairs = zip(frame[spec["text"]], frame[spec["label"]], strict=True)
    for row, (text, label) in enumerate(pairs):
        at = f"{where} row {row}" + (f" (line {row + 2})" if csv else "")
        if not isinstance(text, str) or not text.strip():
            raise DataError(f"{at}: column {spec['text']!r} has no text")
        texts.append(text)
        labels.append(_labels_of(label, names, multi, spec["label_separator"], at))
    ids = [f"{split}-{i:06d}" for i in range(len(texts))]
    return pa.table({"doc_id": ids, "text": texts, "labels": labels}, schema=tables.DOCUMENTS)


def _holdout(train, share: float, seed: int):
    """Split a frame into (train, test): a seeded random ``share`` of the rows becomes test."""
    import numpy as np

    n = len(train)
    n_test = max(1, round(n * share))
    if n_test >= n:
        raise DataError(f"holdout share {share} leaves no training rows of {n}")
    order = np.random.default_rng(seed).permutation(n)
    test_rows = np.sort(order[:n_test])
    train_rows = np.sort(order[n_test:])
    return train.iloc[train_rows].reset_index(drop=True), train.iloc[test_rows].reset_index(
        drop=True
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _hub_frames(spec: Mapping[str, Any]) -> tuple[dict, dict]:
    """The splits of a hub dataset as pandas frames, and its source record."""
    from hinter import hub

    source = spec["hub"]
    what = f"dataset {source['repo']}"
    if hub.offline():
        raise OfflineError(
            f"{what} is on the HuggingFace hub, which is unreachable offline: go online or "
            "declare the dataset by files"
        )
    import datasets

    try:
        dsd = datasets.load_dataset(source["repo"], source.get("name"), revision=source["revision"])
    except Exception as exc:
        raise DataError(f"{what}: cannot load ({first_line(exc)})") from None
    frames = {}
    for split in SPLITS:
        hub_split = {"validation": "validation"}.get(split, split)
        if hub_split in dsd:
            frames[split] = dsd[hub_split].to_pandas()
    record = {"repo": source["repo"], "name": source.get("name"), "revision": source["revision"]}
    return frames, record


def load_frames(spec: Mapping[str, Any], base_dir: str | Path) -> tuple[dict, dict]:
    """The raw splits of a user dataset (after any holdout) and the source record."""
    if spec.get("hub"):
        frames, record = _hub_frames(spec)
    else:
        frames, files = {}, {}
        for split, value in spec["files"].items():
            path = resolve(value, base_dir)
            frames[split] = _read_frame(path, file_format(value, f"files.{split}"))
            files[split] = {"path": str(value), "sha256": _sha256(path)}
        record = {"files": files}
    holdout = spec.get("holdout")
    if holdout:
        if "test" in frames:
            raise DataError("holdout: a test split is already given")
        frames["train"], frames["test"] = _holdout(
            frames["train"], holdout["share"], holdout["seed"]
        )
        record["holdout"] = dict(holdout)
    if "test" not in frames:
        raise DataError("no test split")
    return frames, record


def prepare(name: str, spec: Mapping[str, Any], out_dir: str | Path, base_dir: str | Path) -> dict:
    """Load, check and write one user dataset like :func:`hinter.data.prepare_from_hub`."""
    from hinter import data

    key = f"user_datasets.{name}"
    names = label_names(spec, base_dir, key)
    frames, record = load_frames(spec, base_dir)
    split_tables = {}
    for split in SPLITS:
        frame = frames.get(split)
        if frame is None:
            split_tables[split] = pa.Table.from_pylist([], schema=tables.DOCUMENTS)
            continue
        where, csv = f"{name}/{split}", False
        if "files" in record and split in record["files"] and not record.get("holdout"):
            path = record["files"][split]["path"]
            where, csv = f"{path} ({name}/{split})", file_format(path, split) in ("csv", "tsv")
        for column in (spec["text"], spec["label"]):
            if column not in frame.columns:
                raise DataError(f"{where}: column {column!r} missing")
        split_tables[split] = _split_table(frame, spec, names, split, where, csv)
    if split_tables["test"].num_rows == 0:
        raise DataError(f"{name}/test: no documents")
    prompt = prompt_file(name, spec, base_dir)
    if prompt is not None and spec.get("prompt"):
        _check_example_rows(prompt, split_tables["train"].num_rows)
    meta = {
        "dataset": name,
        "task_type": TASKS[spec["task"]],
        "label_names": names,
        "n_labels": len(names),
        "empty_label_name": None,
        "rows": {split: split_tables[split].num_rows for split in SPLITS},
        "source": {"user": True, **record},
    }
    if spec.get("display_names") is not None:
        shown = {"labels": spec["display_names"]}
        meta["display_names"] = label_names(shown, base_dir, key, "display_name")
    fewshot = fewshot_record(spec, split_tables["train"], names, base_dir, f"{name}/train")
    if fewshot is not None:
        meta["fewshot"] = fewshot
    data.write_dataset(out_dir, split_tables, meta)
    return meta


def _check_example_rows(prompt: Path, n_train: int) -> None:
    """The few-shot example indices of the user's prompt must be rows of the train split."""
    import yaml

    raw = yaml.safe_load(prompt.read_text(encoding="utf-8")) or {}
    for i, item in enumerate(raw.get("examples") or []):
        index = item.get("index") if isinstance(item, dict) else None
        if isinstance(index, int) and index >= n_train:
            raise DataError(
                f"{prompt}: examples[{i}].index {index} is beyond the {n_train} train rows"
            )
