"""The demo grammar: English phrases and clauses generated together with their analysis.

Every phrase comes out of builders that know, for each token, its PTB tag (spaCy ``token.tag_``),
its head and its spaCy English dependency label; the tags drive agreement, and the analysis keeps
the frames well-formed (tested). The slots that take a bias-dictionary term take every term of
that slot (sources and targets alike), including the multi-word group terms that replace one-word
ones ("people" -> "people with mental disorder"), so the demo corpora (`corpus`) are rich in
mutable words of all three attributes. The sentence frames built on these phrases are in
`sentences`; the tag sets in `tags`.

Data (``resources/demo/``): ``lexicon.tsv`` (dictionary terms by slot, with their analysis),
``topics.tsv`` (the label-bearing topic phrases) and ``words.tsv`` (every other word list).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from hinter.demo.tags import DEP_LABELS, PTB_TAGS
from hinter.demo.words import Words, read_tsv
from hinter.errors import DataError
from hinter.paths import RESOURCES

DOMAINS = ("imdb", "ecthr_a", "scotus", "eurlex", "ledgar")


def default_resources() -> Path:
    """The repository's ``resources/`` folder (the package is used from its source tree)."""
    return RESOURCES


# --------------------------------------------------------------------------------------------
# Tokens and phrases


@dataclass(eq=False)
class Token:
    """One token of a sentence under construction; ``head`` is another Token (None = root)."""

    text: str
    tag: str
    dep: str = ""
    head: Token | None = None
    join: bool = False  # no whitespace before this token
    term: TermUse | None = None


@dataclass(eq=False)
class TermUse:
    """One occurrence of a lexicon entry in a sentence (several tokens for multi-word terms)."""

    entry: Entry
    tokens: list[Token] = field(default_factory=list)


@dataclass(eq=False)
class Phrase:
    tokens: list[Token]
    root: Token
    gender: str = "n"  # m | f | n: for pronouns that refer back to the phrase
    plural: bool = False


Part = Token | Phrase | None


def tok(text: str, tag: str, join: bool = False) -> Token:
    return Token(text, tag, join=join)


def word(text: str, tag: str) -> Phrase:
    """A one-token phrase."""
    t = tok(text, tag)
    return Phrase([t], t, plural=tag in ("NNS", "NNPS"))


def attach(child: Token | Phrase, head: Token, dep: str) -> Token | Phrase:
    root = child.root if isinstance(child, Phrase) else child
    root.head, root.dep = head, dep
    return child


def phrase(*parts: Part, root: Token, gender: str = "n", plural: bool = False) -> Phrase:
    tokens: list[Token] = []
    for part in parts:
        if part is None:
            continue
        tokens.extend(part.tokens if isinstance(part, Phrase) else [part])
    return Phrase(tokens, root, gender, plural)


# --------------------------------------------------------------------------------------------
# Lexicon


@dataclass(frozen=True)
class TokenSpec:
    text: str
    tag: str
    dep: str | None  # None for the term's root
    head: int | None  # 0-based index within the term
    join: bool


@dataclass(frozen=True)
class Entry:
    """A lexicon entry: a dictionary term (or topic phrase) in one grammatical slot."""

    slot: str
    attribute: str
    cls: str
    tokens: tuple[TokenSpec, ...]

    @property
    def text(self) -> str:
        out = ""
        for i, t in enumerate(self.tokens):
            out += ("" if t.join or i == 0 else " ") + t.text
        return out

    @property
    def term(self) -> str:
        """The dictionary form (lower case, except all-capital acronyms such as CEO)."""
        return self.text if self.text.isupper() and len(self.text) > 1 else self.text.lower()

    @property
    def gender(self) -> str:
        """m | f | n: the gender a pronoun referring to the term takes."""
        if self.attribute == "gender":
            return {"male": "m", "female": "f"}.get(self.cls, "n")
        head = next(t.text for t in self.tokens if t.head is None)
        return {"man": "m", "men": "m", "woman": "f", "women": "f"}.get(head, "n")

    def build(self) -> Phrase:
        tokens = [Token(t.text, t.tag, t.dep or "", join=t.join) for t in self.tokens]
        use = TermUse(self, tokens)
        root = None
        for spec, token in zip(self.tokens, tokens, strict=True):
            token.term = use if self.attribute != "-" else None
            if spec.head is None:
                root = token
            else:
                token.head = tokens[spec.head]
        assert root is not None
        return Phrase(tokens, root, self.gender, plural=root.tag in ("NNS", "NNPS"))


def parse_tokens(spec: str, where: str) -> tuple[TokenSpec, ...]:
    """Parse ``text/TAG[/dep/head]`` items (``~`` prefix = no space before); one root."""
    items = spec.split()
    out = []
    for item in items:
        join = item.startswith("~")
        fields = (item[1:] if join else item).split("/")
        if len(fields) == 2:
            text, tag = fields
            dep, head = None, None
        elif len(fields) == 4:
            text, tag, dep, head_s = fields
            if not head_s.isdigit() or not 1 <= int(head_s) <= len(items):
                raise DataError(f"{where}: head {head_s!r} of {text!r} outside the term")
            head = int(head_s) - 1
        else:
            raise DataError(f"{where}: cannot read token {item!r} (text/TAG[/dep/head])")
        if tag not in PTB_TAGS:
            raise DataError(f"{where}: {tag!r} is not a PTB tag")
        if dep is not None and dep not in DEP_LABELS:
            raise DataError(f"{where}: {dep!r} is not a spaCy English dependency label")
        out.append(TokenSpec(text, tag, dep, head, join))
    roots = [t for t in out if t.head is None]
    if len(roots) != 1:
        raise DataError(f"{where}: {len(roots)} roots in {spec!r}, expected 1")
    for i in range(len(out)):  # every token reaches the root: no cycles
        j, steps = i, 0
        while out[j].head is not None and steps <= len(out):
            j, steps = out[j].head, steps + 1
        if out[j].head is not None:
            raise DataError(f"{where}: heads form a cycle in {spec!r}")
    return tuple(out)


@dataclass(frozen=True)
class Lexicon:
    entries: tuple[Entry, ...]
    topics: Mapping[str, Mapping[int, tuple[Entry, ...]]]
    words: Words

    @classmethod
    def load(cls, resources: str | Path | None = None) -> Lexicon:
        folder = Path(resources or default_resources()) / "demo"
        entries = []
        for n, cols in read_tsv(folder / "lexicon.tsv"):
            where = f"{folder / 'lexicon.tsv'}:{n}"
            if len(cols) != 4:
                raise DataError(f"{where}: {len(cols)} columns, expected 4")
            slot, attribute, klass, spec = cols
            entries.append(Entry(slot, attribute, klass, parse_tokens(spec, where)))
        topics: dict[str, dict[int, list[Entry]]] = {}
        for n, cols in read_tsv(folder / "topics.tsv"):
            where = f"{folder / 'topics.tsv'}:{n}"
            if len(cols) != 3 or not cols[1].isdigit():
                raise DataError(f"{where}: expected dataset, label id, tokens")
            entry = Entry("topic", "-", cols[0], parse_tokens(cols[2], where))
            topics.setdefault(cols[0], {}).setdefault(int(cols[1]), []).append(entry)
        return cls(
            tuple(entries),
            {ds: {k: tuple(v) for k, v in labels.items()} for ds, labels in topics.items()},
            Words.load(folder / "words.tsv"),
        )

    def slot(self, name: str) -> list[Entry]:
        return [e for e in self.entries if e.slot == name]

    def terms(self, attribute: str | None = None) -> set[str]:
        """Dictionary terms the grammar can write (lower case)."""
        return {
            e.term.lower()
            for e in self.entries
            if e.attribute != "-" and (attribute is None or e.attribute == attribute)
        }


# --------------------------------------------------------------------------------------------
# Sentences


@dataclass
class Sentence:
    """A finished sentence: tokens in order with absolute heads (the root heads itself)."""

    words: list[str]
    spaces: list[bool]
    tags: list[str]
    heads: list[int]
    deps: list[str]
    terms: list[tuple[Entry, int, int]]  # (entry, first token, last token + 1)

    @property
    def text(self) -> str:
        return "".join(w + (" " if s else "") for w, s in zip(self.words, self.spaces, strict=True))

    def attributes(self) -> set[str]:
        return {entry.attribute for entry, _, _ in self.terms}


def finish(tokens: Sequence[Token]) -> Sentence:
    """Order-preserving conversion to index form; checks that the tokens form one tree."""
    index = {id(t): i for i, t in enumerate(tokens)}
    first = tokens[0]
    if first.text[:1].islower():
        first.text = first.text[0].upper() + first.text[1:]
    heads, deps = [], []
    roots = 0
    for i, t in enumerate(tokens):
        if t.head is None:
            roots += 1
            heads.append(i)
            deps.append("ROOT")
        else:
            if id(t.head) not in index:
                raise AssertionError(f"head of {t.text!r} outside the sentence")
            heads.append(index[id(t.head)])
            deps.append(t.dep)
            if not t.dep or t.dep == "ROOT":
                raise AssertionError(f"token {t.text!r} has no dependency label")
    if roots != 1:
        raise AssertionError(f"{roots} roots in {' '.join(t.text for t in tokens)!r}")
    for i in range(len(tokens)):  # acyclic: every token reaches the root
        seen, j = set(), i
        while heads[j] != j:
            if j in seen:
                raise AssertionError("cycle in " + " ".join(t.text for t in tokens))
            seen.add(j)
            j = heads[j]
    spaces = [not tokens[i + 1].join for i in range(len(tokens) - 1)] + [False]
    terms = []
    seen_uses: set[int] = set()
    for t in tokens:
        if t.term is not None and id(t.term) not in seen_uses:
            seen_uses.add(id(t.term))
            ids = [index[id(x)] for x in t.term.tokens]
            terms.append((t.term.entry, min(ids), max(ids) + 1))
    return Sentence([t.text for t in tokens], spaces, [t.tag for t in tokens], heads, deps, terms)


# --------------------------------------------------------------------------------------------
# Phrase builders and clauses: what the sentence frames (`sentences.Writer`) are made of


class PhraseWriter:
    """Draws phrases and clauses from the grammar with a seeded RNG.

    ``bias`` maps an attribute to the dictionary classes its slots prefer with probability
    ``strength`` (the corpus generator's planted bias).
    """

    def __init__(
        self,
        lexicon: Lexicon,
        rng: random.Random,
        *,
        bias: Mapping[str, Sequence[str]] | None = None,
        strength: float = 0.0,
    ):
        self.lex = lexicon
        self.words = lexicon.words
        self.rng = rng
        self.bias = {k: tuple(v) for k, v in (bias or {}).items()}
        self.strength = strength
        self.slots = {name: lexicon.slot(name) for name in {e.slot for e in lexicon.entries}}

    # --- random helpers
    def pick(self, seq: Sequence):
        return seq[self.rng.randrange(len(seq))]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def weighted(self, options: Sequence[tuple[float, object]]):
        total = sum(w for w, _ in options)
        x = self.rng.random() * total
        for w, value in options:
            x -= w
            if x < 0:
                return value
        return options[-1][1]

    # --- lexicon access
    #: Slots whose one-word "common" terms (people, men, women, man, ...) are drawn half of the
    #: time: they are the sources of most body pairs, so texts need them often.
    COMMON_SHARE: ClassVar[dict[str, float]] = {"group": 0.5, "body_sg": 0.5}

    def entry(self, slot: str, gender: str | None = None) -> Entry:
        cands = self.slots[slot]
        if gender in ("m", "f"):
            cands = [e for e in cands if e.gender in (gender, "n")] or cands
        want = self.bias.get(cands[0].attribute)
        if want and self.strength > 0 and self.rng.random() < self.strength:
            cands = [e for e in cands if e.cls in want] or cands
        elif slot in self.COMMON_SHARE and self.rng.random() < self.COMMON_SHARE[slot]:
            cands = [e for e in cands if e.cls == "common"] or cands
        return self.pick(cands)

    def term(self, slot: str, gender: str | None = None) -> Phrase:
        return self.entry(slot, gender).build()

    def gender(self) -> str:
        want = self.bias.get("gender", ())
        if want and self.strength > 0 and self.rng.random() < self.strength:
            if "female" in want:
                return "f"
            if "male" in want:
                return "m"
        return self.pick("mf")

    def pron(self, kind: str, gender: str) -> Phrase:
        slot = {
            "subj": "pron_subj",
            "obj": "pron_obj",
            "poss": "pron_poss",
            "refl": "pron_refl",
            "indep": "pron_indep",
        }[kind]
        cls = "male" if gender == "m" else "female"
        return next(e for e in self.slots[slot] if e.cls == cls).build()

    def article(self, before: Phrase | Token, definite: bool | None = None) -> Token:
        if definite is None:
            definite = self.chance(0.5)
        if definite:
            return tok("the", "DT")
        first = (before.tokens[0] if isinstance(before, Phrase) else before).text.lower()
        vowel = first[:1] in "aeiou" and not first.startswith(("eu", "uk", "uni", "us"))
        return tok("an" if vowel else "a", "DT")

    # --- noun phrases
    def noun_group(self, head: Phrase, *mods: Phrase | None, det: bool | None = True) -> Phrase:
        """[det] mods... head, each modifier attached to the head (amod / compound)."""
        present = [m for m in mods if m is not None]
        for m in present:
            attach(m, head.root, "amod" if m.root.tag == "JJ" else "compound")
        det_tok = None
        if det is not False:
            det_tok = self.article(present[0] if present else head, definite=det if det else None)
            attach(det_tok, head.root, "det")
        return phrase(
            det_tok, *present, head, root=head.root, gender=head.gender, plural=head.plural
        )

    def np_person(self, role: str = "subj") -> Phrase:
        """A singular person: 'a Pakistani nurse', 'her brother', 'Mrs Hale', 'he', ..."""
        kind = self.weighted(
            [
                (0.24, "job"),
                (0.11, "person"),
                (0.14, "kin"),
                (0.09, "title"),
                (0.07, "race_noun"),
                (0.07, "genitive"),
                (0.11, "pronoun"),
                (0.08, "body"),
                (0.09, "neutral"),
            ]
        )
        race = self.term("race_mod") if self.chance(0.6) else None
        if kind == "job":
            pre = self.term("adj_pre") if self.chance(0.05) else None
            return self.noun_group(self.term("job_sg"), race, pre, det=None)
        if kind == "person":
            return self.noun_group(self.term("person_sg"), race, det=None)
        if kind == "body":  # 'the disabled man', 'a woman with mental illness'
            return self.noun_group(self.term("body_sg"), race, det=None)
        if kind == "kin":
            return self.kin_np()
        if kind == "title":
            return self.titled()
        if kind == "race_noun":
            return self.noun_group(self.term("race_noun"), det=None)
        if kind == "genitive":
            owner = self.noun_group(self.term(self.pick(["person_sg", "job_sg"])), race, det=True)
            return self.genitive(owner, self.term("kin_sg"))
        if kind == "pronoun":
            g = self.gender()
            p = self.pron("subj" if role == "subj" else "obj", g)
            p.gender = g
            return p
        return self.noun_group(word(self.pick(self.words.neutral_persons), "NN"), race, det=None)

    def genitive(self, owner: Phrase, head: Phrase) -> Phrase:
        """owner 's head: 'the Syrian woman's husband'."""
        pos = tok("'s", "POS", join=True)
        attach(pos, owner.root, "case")
        attach(owner, head.root, "poss")
        return phrase(owner, pos, head, root=head.root, gender=head.gender)

    def kin_np(self, owner_gender: str | None = None, plural: bool = False) -> Phrase:
        """his brother / her maternal grandmother / my sisters."""
        head = self.term("kin_pl" if plural else "kin_sg")
        mod = self.term("kin_mod") if not plural and self.chance(0.08) else None
        if mod is not None:
            attach(mod, head.root, "amod")
        g = owner_gender or self.gender()
        poss = self.pron("poss", g)
        attach(poss, head.root, "poss")
        return phrase(poss, mod, head, root=head.root, gender=head.gender, plural=plural)

    def titled(self) -> Phrase:
        title = self.term("title")
        name = tok(self.pick(self.words.surnames), "NNP")
        attach(title, name, "compound")
        return phrase(title, name, root=name, gender=title.gender)

    def np_group(self, role: str = "subj") -> Phrase:
        """A plural group: 'many people with mental disorder', 'the Syrian women', ..."""
        kind = self.weighted(
            [(0.55, "body"), (0.15, "person"), (0.12, "kin"), (0.04, "soviets"), (0.14, "neutral")]
        )
        if kind == "kin":
            return self.kin_np(plural=True)
        if kind == "soviets":
            head = self.term("race_group")
            the = tok("the", "DT")
            attach(the, head.root, "det")
            return phrase(the, head, root=head.root, plural=True)
        if kind == "body":
            head = self.term("group")
        elif kind == "person":
            head = self.term("person_pl")
        else:
            head = word(self.pick(self.words.neutral_plurals), "NNS")
        head.plural = True
        race = self.term("race_mod") if self.chance(0.3 if kind == "body" else 0.6) else None
        quant = None
        if self.chance(0.7):
            qword, qtag, qdep = self.pick(self.words.quantifiers)
            quant = attach(tok(qword, qtag), head.root, qdep)
        if race is not None:
            attach(race, head.root, "amod" if race.root.tag == "JJ" else "compound")
        return phrase(quant, race, head, root=head.root, gender=head.gender, plural=True)

    def np_thing(self, owner_gender: str | None = None, plural: bool | None = None) -> Phrase:
        """'his passport', 'the new contract', 'her documents'."""
        if plural is None:
            plural = self.chance(0.2)
        head_tok = tok(
            self.pick(self.words.things_pl if plural else self.words.things),
            "NNS" if plural else "NN",
        )
        adj = (
            attach(tok(self.pick(self.words.thing_adj), "JJ"), head_tok, "amod")
            if self.chance(0.25)
            else None
        )
        if owner_gender is not None or self.chance(0.55):
            det = self.pron("poss", owner_gender or self.gender())
            attach(det, head_tok, "poss")
        else:
            det = attach(self.article(adj or head_tok), head_tok, "det")
            if plural and det.text in ("a", "an"):
                det.text = "the"
        return phrase(det, adj, head_tok, root=head_tok, plural=plural)

    def np_any(self, role: str = "subj") -> Phrase:
        return self.np_group(role) if self.chance(0.35) else self.np_person(role)

    def pp(self, head: Token, word: str, obj: Phrase | Token, dep: str = "prep") -> Phrase:
        prep = attach(tok(word, "IN"), head, dep)
        attach(obj, prep, "pobj")
        return phrase(prep, obj, root=prep)

    def place_pp(self, head: Token) -> Phrase:
        noun = tok(self.pick(self.words.places), "NN")
        det = attach(tok("the", "DT"), noun, "det")
        return self.pp(head, self.pick(["in", "at", "near"]), phrase(det, noun, root=noun))

    def year_pp(self, head: Token) -> Phrase:
        return self.pp(head, "in", tok(str(self.rng.randrange(1990, 2021)), "CD"))

    def optional_pp(self, head: Token) -> Phrase | None:
        r = self.rng.random()
        if r < 0.2:
            return self.place_pp(head)
        if r < 0.32:
            return self.year_pp(head)
        if r < 0.42:
            return self.pp(head, "for", self.np_group("pobj"))
        if r < 0.5:
            return self.pp(head, "with", self.np_person("pobj"))
        return None

    @staticmethod
    def be(subject: Phrase, past: bool = True) -> str:
        if past:
            return "were" if subject.plural else "was"
        return "are" if subject.plural else "is"

    # --- clauses (return (tokens, root) without the final period)
    def clause(self, subj: Phrase | None = None) -> Phrase:
        """A finite past-tense clause: one of several shapes."""
        subj = subj or self.np_any("subj")
        kind = self.weighted(
            [(0.3, "tp"), (0.3, "tt"), (0.15, "intr"), (0.1, "pass"), (0.15, "pred")]
        )
        if kind == "tp":
            verb = tok(self.pick(self.words.verbs_person)[0], "VBD")
            attach(subj, verb, "nsubj")
            obj = attach(self.np_any("obj"), verb, "dobj")
            return phrase(subj, verb, obj, self.optional_pp(verb), root=verb)
        if kind == "tt":
            verb = tok(self.pick(self.words.verbs_thing)[0], "VBD")
            attach(subj, verb, "nsubj")
            obj = attach(self.np_thing(subj.gender if subj.gender != "n" else None), verb, "dobj")
            return phrase(subj, verb, obj, self.optional_pp(verb), root=verb)
        if kind == "intr":
            verb = tok(self.pick(self.words.verbs_intrans), "VBD")
            attach(subj, verb, "nsubj")
            adv = (
                attach(tok(self.pick(self.words.adverbs), "RB"), verb, "advmod")
                if self.chance(0.3)
                else None
            )
            return phrase(subj, verb, adv, self.optional_pp(verb), root=verb)
        if kind == "pass":
            verb = tok(self.pick(self.words.verbs_person)[1], "VBN")
            attach(subj, verb, "nsubjpass")
            aux = attach(tok(self.be(subj), "VBD"), verb, "auxpass")
            agent = attach(tok("by", "IN"), verb, "agent")
            obj = attach(self.np_any("pobj"), agent, "pobj")
            return phrase(subj, aux, verb, agent, obj, root=verb)
        verb = tok(self.be(subj), "VBD")
        attach(subj, verb, "nsubj")
        adj = (
            tok(self.pick(self.words.adj_pred), "JJ") if self.chance(0.5) else self.term("adj_pred")
        )
        attach(adj, verb, "acomp")
        return phrase(subj, verb, adj, root=verb)

    def sentence_from(self, body: Phrase, end: str = ".") -> Sentence:
        dot = attach(tok(end, "." if end in ".!?" else end, join=True), body.root, "punct")
        return finish([*body.tokens, dot])
