"""Grammar checkers behind one interface: ``check(text) -> list[Issue]``.

- ``harper``: Automattic's Harper (Rust) through ``harper-py``, in process and offline — the
  default, and the demo's checker;
- ``languagetool``: LanguageTool through ``language-tool-python``, the paper-faithful stand-in
  for Grammarly: a local server the client starts (it needs Java and downloads LanguageTool on
  first use) or any server given by ``remote_server`` (``http://host:8081``).

Each checker maps its own rule kinds onto the shared categories of
:mod:`hinter.grammar.scoring`, and names itself (``identity``) and its version for the
score cache: a different checker, setting or version never reuses another's scores.
"""

from __future__ import annotations

import logging
import urllib.parse
from importlib import metadata
from typing import Any, Protocol

from hinter.errors import ConfigError, HinterError, first_line
from hinter.grammar.scoring import Issue

log = logging.getLogger(__name__)

CHECKERS = ("harper", "languagetool")

# Harper's lint kinds (harper-core LintKind) -> shared categories. Harper files the article
# rule (a/an) under "Miscellaneous", hence grammar.
HARPER_CATEGORIES = {
    "Agreement": "grammar",
    "BoundaryError": "grammar",
    "Eggcorn": "grammar",
    "Grammar": "grammar",
    "Malapropism": "grammar",
    "Miscellaneous": "grammar",
    "Nonstandard": "grammar",
    "Repetition": "grammar",
    "Usage": "grammar",
    "WordChoice": "grammar",
    "WordOrder": "grammar",
    "Spelling": "spelling",
    "Typo": "spelling",
    "Punctuation": "punctuation",
    "Capitalization": "casing",
    "Formatting": "typography",
    "Enhancement": "style",
    "Readability": "style",
    "Redundancy": "style",
    "Regionalism": "style",
    "Style": "style",
}

# LanguageTool's rule categories (category.id) -> shared categories. MISC holds the a/an
# rule (EN_A_VS_AN) and word repetition, hence grammar.
LANGUAGETOOL_CATEGORIES = {
    "GRAMMAR": "grammar",
    "CONFUSED_WORDS": "grammar",
    "COLLOCATIONS": "grammar",
    "COMPOUNDING": "grammar",
    "MISC": "grammar",
    "NONSTANDARD_PHRASES": "grammar",
    "SEMANTICS": "grammar",
    "TYPOS": "spelling",
    "PUNCTUATION": "punctuation",
    "CASING": "casing",
    "TYPOGRAPHY": "typography",
    "STYLE": "style",
    "REDUNDANCY": "style",
    "REPETITIONS_STYLE": "style",
    "PLAIN_ENGLISH": "style",
    "WIKIPEDIA": "style",
    "GENDER_NEUTRALITY": "style",
    "AMERICAN_ENGLISH_STYLE": "style",
    "BRITISH_ENGLISH": "style",
    "REGIONALISMS": "style",
    "CREATIVE_WRITING": "style",
    "TEXT_ANALYSIS": "style",
}
# Fallback for a category this table does not know: LanguageTool's issue type (ITS 2.0).
LANGUAGETOOL_ISSUE_TYPES = {
    "grammar": "grammar",
    "duplication": "grammar",
    "misspelling": "spelling",
    "typographical": "typography",
    "whitespace": "typography",
    "style": "style",
    "register": "style",
    "locale-violation": "style",
}


class Checker(Protocol):
    """What the scoring stage needs of a grammar checker."""

    name: str  # "harper" | "languagetool"
    identity: str  # name and settings, e.g. "harper/american/plaintext"
    version: str  # the checker's version (part of the cache key)

    def check(self, text: str) -> list[Issue]: ...

    def close(self) -> None: ...


class HarperChecker:
    """Harper in process (``harper-py``), plain text, one English dialect."""

    name = "harper"

    def __init__(self, dialect: str = "american"):
        import harper

        try:
            chosen = harper.Dialect[dialect.upper()]
        except KeyError:
            known = ", ".join(d.name.lower() for d in harper.Dialect)
            raise ConfigError(
                f"grammar.harper.dialect: unknown dialect {dialect!r} (known: {known})"
            ) from None
        self._language = harper.Language.PLAINTEXT
        self._linter = harper.Linter(chosen)
        self.identity = f"harper/{chosen.name.lower()}/plaintext"
        self.version = metadata.version("harper-py")

    def check(self, text: str) -> list[Issue]:
        return [
            Issue(
                HARPER_CATEGORIES.get(lint.lint_kind, "other"),
                lint.lint_kind,
                lint.span.start,
                lint.span.end - lint.span.start,
            )
            for lint in self._linter.lint(text, language=self._language)
        ]

    def close(self) -> None:
        pass


class LanguageToolChecker:
    """LanguageTool through ``language-tool-python``: a local server, or ``remote_server``."""

    name = "languagetool"

    def __init__(self, remote_server: str | None = None, language: str = "en-US"):
        import language_tool_python

        where = remote_server or "a local LanguageTool server (Java >= 17, downloaded on first use)"
        try:
            self._tool = language_tool_python.LanguageTool(language, remote_server=remote_server)
        except ValueError as exc:
            raise ConfigError(f"grammar.languagetool.language: {first_line(exc)}") from None
        except Exception as exc:  # the client raises several kinds for an unreachable server
            raise ConfigError(
                f"grammar.languagetool.remote_server: cannot use {where} ({first_line(exc)})"
            ) from None
        self.identity = f"languagetool/{language}"
        self.version = self._server_version(where)

    def _server_version(self, where: str) -> str:
        """The server's LanguageTool version, from the ``software`` block of a check."""
        import requests

        url = urllib.parse.urljoin(self._tool.url, "check")
        try:
            response = requests.post(
                url, data={"language": str(self._tool.language), "text": "Version."}, timeout=60
            )
            software = response.json().get("software", {})
        except (requests.RequestException, ValueError) as exc:
            raise ConfigError(
                f"grammar.languagetool.remote_server: no answer from {where} ({first_line(exc)})"
            ) from None
        version = software.get("version")
        if not version:
            raise ConfigError(
                f"grammar.languagetool.remote_server: {url} does not report its version"
            )
        return str(version)

    def check(self, text: str) -> list[Issue]:
        try:
            matches = self._tool.check(text)
        except Exception as exc:
            raise HinterError(f"LanguageTool at {self._tool.url}: {first_line(exc)}") from None
        return [
            Issue(
                LANGUAGETOOL_CATEGORIES.get(m.category)
                or LANGUAGETOOL_ISSUE_TYPES.get(m.rule_issue_type, "other"),
                m.rule_id,
                int(m.offset),
                int(m.error_length),
            )
            for m in matches
        ]

    def close(self) -> None:
        self._tool.close()


def make_checker(name: str, options: dict[str, Any] | None = None) -> Checker:
    """The checker called ``name`` with its config section (``grammar.<name>``)."""
    options = dict(options or {})
    if name == "harper":
        return HarperChecker(**options)
    if name == "languagetool":
        return LanguageToolChecker(**options)
    raise ConfigError(f"grammar.checker: unknown checker {name!r} (known: {', '.join(CHECKERS)})")


def checker_settings(config: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The checker's name and its options (``grammar.<checker>`` of the config)."""
    grammar = config["grammar"]
    name = grammar["checker"]
    return name, dict(grammar.get(name, {}))
