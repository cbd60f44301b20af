"""The dependency invariant (paper Alg. 3 and 4): is a mutant's parse similar to its original's?

- :mod:`~hinter.invariant.compare`: ``tolerant_table_comp`` (Alg. 4), reason codes, verdicts;
- :mod:`~hinter.invariant.split`: the deterministic sentence splitter;
- :mod:`~hinter.invariant.parse`: the spaCy pipeline (en_core_web_sm found offline, checked on
  load; batched parsing);
- :mod:`~hinter.invariant.cache`: the persistent parse cache (SQLite);
- :mod:`~hinter.invariant.check`: ``inv_check`` (Alg. 3, literal) and the incremental checker;
- :mod:`~hinter.invariant.stage`: the workflow stage (validity files and summaries).
"""

from hinter.invariant.cache import ParseCache
from hinter.invariant.check import CheckStats, IncrementalChecker, inv_check
from hinter.invariant.compare import (
    DEP,
    DISABLED,
    OK,
    POS,
    REASONS,
    SENTENCE_COUNT,
    TOO_LONG,
    Parse,
    Verdict,
    compare_parses,
    tolerant_errors,
    tolerant_table_comp,
)
from hinter.invariant.parse import (
    DEFAULT_PIPELINE,
    PipelineInfo,
    SpacyParser,
    load_pipeline,
    parse_of,
    pipeline_fingerprint,
    pipeline_info,
    resolve_pipeline,
)
from hinter.invariant.split import SentenceSplitter
from hinter.invariant.stage import check_shard, summarise

__all__ = [
    "DEFAULT_PIPELINE",
    "DEP",
    "DISABLED",
    "OK",
    "POS",
    "REASONS",
    "SENTENCE_COUNT",
    "TOO_LONG",
    "CheckStats",
    "IncrementalChecker",
    "Parse",
    "ParseCache",
    "PipelineInfo",
    "SentenceSplitter",
    "SpacyParser",
    "Verdict",
    "check_shard",
    "compare_parses",
    "inv_check",
    "load_pipeline",
    "parse_of",
    "pipeline_fingerprint",
    "pipeline_info",
    "resolve_pipeline",
    "summarise",
    "tolerant_errors",
    "tolerant_table_comp",
]
