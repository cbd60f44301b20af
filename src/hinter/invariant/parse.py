"""The spaCy backend of the invariant: loading a pipeline and parsing sentences in batches.

Each sentence is parsed on its own (paper Alg. 3 lines 11-12), so a parse is a function of the
sentence text and the pipeline only; that is what makes the parse cache and the reuse of
original and parent parses exact.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from pathlib import Path

import spacy

from hinter.errors import ConfigError
from hinter.invariant.compare import Parse

log = logging.getLogger(__name__)

# Components that set neither TAG nor DEP: excluded when loading, to parse faster.
_IRRELEVANT = (
    "ner",
    "lemmatizer",
    "trainable_lemmatizer",
    "entity_ruler",
    "entity_linker",
    "span_ruler",
    "spancat",
    "spancat_singlelabel",
    "span_finder",
    "textcat",
    "textcat_multilabel",
)
# Offline installation of the paper's pipeline (the version matching spaCy 3.8).
_WHEELS = {
    "en_core_web_sm": "https://github.com/explosion/spacy-models/releases/download/"
    "en_core_web_sm-3.8.0/en_core_web_sm-3.8.0-py3-none-any.whl",
}
# A text is worth a worker process only when there are this many per process.
_MIN_TEXTS_PER_PROCESS = 2000


def install_hint(name: str) -> str:
    """The command that installs a spaCy package (and its wheel URL where we know it)."""
    hint = f"install it with `python -m spacy download {name}`"
    if name in _WHEELS:
        hint += f" or `pip install {_WHEELS[name]}`"
    return hint


def load_pipeline(spec: str | Path):
    """Load ``parser.pipeline``: an installed package name or a pipeline directory.

    A missing package or directory is a one-line ConfigError that says how to get it.
    """
    text = str(spec)
    path = Path(text)
    if path.is_dir():
        source: str | Path = path
    elif "/" in text or "\\" in text or text.startswith("."):
        raise ConfigError(f"config key 'parser.pipeline': directory {text} not found")
    elif not spacy.util.is_package(text):
        raise ConfigError(
            f"config key 'parser.pipeline': spaCy pipeline {text!r} is not installed; "
            + install_hint(text)
        )
    else:
        source = text
    try:
        nlp = spacy.load(source, exclude=list(_IRRELEVANT))
    except (OSError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(f"config key 'parser.pipeline': cannot load {text} ({first})") from None
    probe = nlp("The parser reads this sentence.")
    if not (probe.has_annotation("TAG") and probe.has_annotation("DEP")):
        raise ConfigError(
            f"config key 'parser.pipeline': {text} does not set POS tags and dependency labels "
            "(it needs a tagger and a parser)"
        )
    return nlp


def pipeline_fingerprint(nlp, spec: str | Path) -> str:
    """Cache key of a pipeline: ``lang_name-version``, its components, and for a directory a
    digest of its files (a retrained demo pipeline keeps its name and version)."""
    meta = nlp.meta
    key = f"{meta.get('lang', '')}_{meta.get('name', '')}-{meta.get('version', '')}"
    key += "[" + ",".join(nlp.pipe_names) + "]"
    path = Path(str(spec))
    if path.is_dir():
        digest = hashlib.blake2b(digest_size=8)
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            digest.update(str(file.relative_to(path)).encode("utf-8") + b"\x00")
            digest.update(file.read_bytes())
        key += "@" + digest.hexdigest()
    return key


def parse_of(doc) -> Parse:
    """The tags and dependency labels of a parsed spaCy ``Doc``, token by token."""
    return Parse(tuple(t.tag_ for t in doc), tuple(t.dep_ for t in doc))


class SpacyParser:
    """Parse sentence texts with ``nlp.pipe`` in batches, optionally in several processes."""

    def __init__(self, nlp, fingerprint: str, batch_size: int = 256, n_process: int = 1):
        self.nlp = nlp
        self.fingerprint = fingerprint
        self.batch_size = batch_size
        self.n_process = max(1, n_process)
        self.parsed = 0  # sentences parsed so far (the work the benchmark counts)

    def parse(self, texts: Sequence[str]) -> list[Parse]:
        """The parses of ``texts``, in order."""
        if not texts:
            return []
        n_process = min(self.n_process, max(1, len(texts) // _MIN_TEXTS_PER_PROCESS))
        docs = self.nlp.pipe(texts, batch_size=self.batch_size, n_process=n_process)
        out = [parse_of(doc) for doc in docs]
        self.parsed += len(texts)
        return out
