"""A treebank of the demo grammar: spaCy DocBin files with PTB tags, heads and dependency labels.

Sentences come from the same builders as the demo corpora (all domains, all topic phrases, every
dictionary term of every slot, treebank-only terms included), so the parser trained on it sees
every construction a demo text or a demo mutant can contain. A treebank document holds one to
three sentences separated by a space or a newline (ECtHR paragraphs), annotated so that the
newline token (tag ``_SP``, label ``dep``) begins the next sentence, exactly where spaCy's
rule-based sentencizer puts it. Words are spaCy's own tokens of the text (checked), so training
examples align one to one.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import srsly

from hinter import io
from hinter.demo.grammar import DOMAINS, Lexicon, Sentence, Writer, default_resources
from hinter.errors import DataError

DEV_FRACTION = 0.15


@dataclass(frozen=True)
class TreebankDoc:
    """One or more sentences and the separators between them (" " or "\\n")."""

    sentences: tuple[Sentence, ...]
    separators: tuple[str, ...]
    lead: str = ""  # "\n": the text starts with a newline (an ECtHR paragraph split off)

    def __len__(self) -> int:
        return len(self.arrays()[0])

    def arrays(self) -> tuple[list[str], list[bool], list[str], list[int], list[str]]:
        """words, spaces, tags, absolute heads, deps of the whole document."""
        words: list[str] = []
        spaces: list[bool] = []
        tags: list[str] = []
        heads: list[int] = []
        deps: list[str] = []
        for i, s in enumerate(self.sentences):
            sep = self.separators[i - 1] if i else self.lead
            if sep:
                if sep == " ":
                    spaces[-1] = True
                else:  # a newline token starts the sentence, attached to its root
                    root = len(words) + 1 + next(j for j, h in enumerate(s.heads) if h == j)
                    words.append(sep)
                    spaces.append(False)
                    tags.append("_SP")
                    heads.append(root)
                    deps.append("dep")
            offset = len(words)
            words += s.words
            spaces += s.spaces
            tags += s.tags
            heads += [h + offset for h in s.heads]
            deps += s.deps
        return words, spaces, tags, heads, deps

    @property
    def text(self) -> str:
        words, spaces, *_ = self.arrays()
        return "".join(w + (" " if sp else "") for w, sp in zip(words, spaces, strict=True))


def draw_sentence(writer: Writer) -> Sentence:
    """One sentence of any domain: narrative, topic (any label of any dataset) or sentiment."""
    rng = writer.rng
    x = rng.random()
    if x < 0.55:
        return writer.narrative(writer.pick(DOMAINS))
    if x < 0.85:
        dataset = writer.pick(sorted(writer.lex.topics))
        return writer.topic_sentence(dataset, writer.pick(sorted(writer.lex.topics[dataset])))
    return writer.topic_sentence("imdb", writer.pick(["pos", "neg"]))


def sentences(n: int, seed: int, resources: str | Path | None = None) -> list[Sentence]:
    lexicon = Lexicon.load(resources)
    writer = Writer(lexicon, random.Random(f"hinter-treebank:{seed}"), treebank=True)
    return [draw_sentence(writer) for _ in range(n)]


def group(sents: Sequence[Sentence], rng: random.Random) -> list[TreebankDoc]:
    """Documents of 1-3 consecutive sentences (60% single), separated by a space or a newline."""
    docs, i = [], 0
    while i < len(sents):
        k = 1 if rng.random() < 0.6 else rng.choice((2, 3))
        part = tuple(sents[i : i + k])
        seps = tuple(" " if rng.random() < 0.6 else "\n" for _ in part[1:])
        # The invariant parses each sentence on its own, and a sentence that follows a
        # paragraph break begins with the newline: some single sentences show that too.
        lead = "\n" if k == 1 and rng.random() < 0.15 else ""
        docs.append(TreebankDoc(part, seps, lead))
        i += k
    return docs


def build(
    n_sentences: int,
    seed: int,
    resources: str | Path | None = None,
    dev_fraction: float = DEV_FRACTION,
) -> tuple[list[TreebankDoc], list[TreebankDoc]]:
    """(train, dev) documents: ``n_sentences`` in all, the last ``dev_fraction`` for dev."""
    sents = sentences(n_sentences, seed, resources)
    n_dev = max(1, round(n_sentences * dev_fraction))
    rng = random.Random(f"hinter-treebank-docs:{seed}")
    return group(sents[:-n_dev], rng), group(sents[-n_dev:], rng)


def to_docs(docs: Sequence[TreebankDoc], vocab):
    """spaCy Docs with gold tags, heads and labels; fails when spaCy would tokenize differently."""
    from spacy.tokens import Doc

    out = []
    for d in docs:
        words, spaces, tags, heads, deps = d.arrays()
        out.append(Doc(vocab, words=words, spaces=spaces, tags=tags, heads=heads, deps=deps))
    return out


def check_tokenization(docs: Sequence[TreebankDoc], tokenizer) -> list[str]:
    """Texts whose spaCy tokenization differs from the grammar's words (should be none)."""
    bad = []
    for d in docs:
        words = d.arrays()[0]
        if [t.text for t in tokenizer(d.text)] != words:
            bad.append(d.text)
    return bad


def docbin_bytes(docs) -> bytes:
    """DocBin bytes with the string table sorted, so the same docs give the same bytes."""
    from spacy.tokens import DocBin

    data = DocBin(docs=docs, store_user_data=False).to_bytes()
    msg = srsly.msgpack_loads(zlib.decompress(data))
    msg["strings"] = sorted(msg["strings"])
    return zlib.compress(srsly.msgpack_dumps(msg))


def write_treebank(
    n_sentences: int,
    seed: int,
    train_path: str | Path,
    dev_path: str | Path,
    resources: str | Path | None = None,
) -> dict[str, int]:
    """Build the treebank, check it against spaCy's tokenizer and write both DocBin files."""
    import spacy

    nlp = spacy.blank("en")
    train, dev = build(n_sentences, seed, resources or default_resources())
    bad = check_tokenization(train + dev, nlp.tokenizer)
    if bad:
        raise DataError(
            f"demo treebank: spaCy tokenizes {len(bad)} text(s) differently: {bad[0]!r}"
        )
    stats = {}
    for name, docs, path in (("train", train, train_path), ("dev", dev, dev_path)):
        spacy_docs = to_docs(docs, nlp.vocab)
        with io.atomic_path(path) as tmp:
            tmp.write_bytes(docbin_bytes(spacy_docs))
        stats[f"{name}_docs"] = len(docs)
        stats[f"{name}_sentences"] = sum(len(d.sentences) for d in docs)
        stats[f"{name}_tokens"] = sum(len(d) for d in spacy_docs)
    return stats


# --------------------------------------------------------------------------------------------
# Substituted sentences: what a mutant does to a sentence, with the gold analysis that follows


def substitute(sentence: Sentence, index: int, entry) -> Sentence:
    """Replace the ``index``-th dictionary term of ``sentence`` by ``entry`` (same slot)."""
    _, start, end = sentence.terms[index]
    new = entry.tokens
    k = len(new)
    delta = k - (end - start)
    old_root = next(
        i
        for i in range(start, end)
        if sentence.heads[i] == i or not start <= sentence.heads[i] < end
    )
    new_root = start + next(j for j, t in enumerate(new) if t.head is None)

    def shift(h: int) -> int:
        if start <= h < end:
            return new_root
        return h + delta if h >= end else h

    words, spaces, tags, heads, deps = [], [], [], [], []
    for i in range(start):  # before the term
        words.append(sentence.words[i])
        spaces.append(sentence.spaces[i])
        tags.append(sentence.tags[i])
        heads.append(shift(sentence.heads[i]))
        deps.append(sentence.deps[i])
    for j, t in enumerate(new):  # the new term: its own analysis, attached like the old one
        text = t.text
        if start == 0 and j == 0 and text[:1].islower():
            text = text[0].upper() + text[1:]
        words.append(text)
        spaces.append(sentence.spaces[end - 1] if j == k - 1 else not new[j + 1].join)
        tags.append(t.tag)
        if t.head is None:
            h = sentence.heads[old_root]
            heads.append(new_root if h == old_root else shift(h))
            dep = sentence.deps[old_root]
            if dep in ("amod", "compound"):  # a modifier's label follows its word class
                dep = "amod" if t.tag == "JJ" else "compound"
            deps.append(dep)
        else:
            heads.append(start + t.head)
            deps.append(t.dep or "")
    for i in range(end, len(sentence.words)):  # after the term
        words.append(sentence.words[i])
        spaces.append(sentence.spaces[i])
        tags.append(sentence.tags[i])
        heads.append(shift(sentence.heads[i]))
        deps.append(sentence.deps[i])
    terms = []
    for i, (e, s0, e0) in enumerate(sentence.terms):
        if i == index:
            terms.append((entry, start, start + k))
        elif s0 >= end:
            terms.append((e, s0 + delta, e0 + delta))
        else:
            terms.append((e, s0, e0))
    return Sentence(words, spaces, tags, heads, deps, terms)


def substituted(n: int, seed: int, resources: str | Path | None = None) -> list[Sentence]:
    """Held-out sentences, each with one dictionary term replaced by another term of its slot
    from a different class, as a mutant would (his -> her, people -> people with mental
    disorder, British -> Pakistani, nurse -> engineer). Treebank-only terms are not used."""
    lexicon = Lexicon.load(resources)
    rng = random.Random(f"hinter-substituted:{seed}")
    writer = Writer(lexicon, rng)
    out = []
    while len(out) < n:
        s = draw_sentence(writer)
        if not s.terms:
            continue
        index = rng.randrange(len(s.terms))
        entry = s.terms[index][0]
        choices = [e for e in lexicon.slot(entry.slot) if e.cls != entry.cls]
        if not choices:
            choices = [e for e in lexicon.slot(entry.slot) if e.term != entry.term]
        if not choices:
            continue
        out.append(substitute(s, index, rng.choice(choices)))
    return out
