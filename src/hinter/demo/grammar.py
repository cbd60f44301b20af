"""The demo grammar: English sentences generated together with their analysis.

Every sentence comes out of phrase builders that know, for each token, its PTB tag (spaCy
``token.tag_``), its head and its spaCy English dependency label; the tags drive agreement, and
the analysis keeps the frames well-formed (tested). The slots that take a bias-dictionary term
take every term of that slot (sources and targets alike), including the multi-word group terms
that replace one-word ones ("people" -> "people with mental disorder"), so the demo corpora
(`corpus`) are rich in mutable words of all three attributes.

Data: ``resources/demo/lexicon.tsv`` (dictionary terms by slot, with their analysis) and
``resources/demo/topics.tsv`` (the label-bearing topic phrases). All other words are below.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from hinter.errors import DataError

#: spaCy English dependency labels the grammar may emit (ClearNLP scheme of en_core_web_*).
DEP_LABELS = frozenset(
    [
        "ROOT",
        "acl",
        "acomp",
        "advcl",
        "advmod",
        "agent",
        "amod",
        "appos",
        "attr",
        "aux",
        "auxpass",
        "case",
        "cc",
        "ccomp",
        "compound",
        "conj",
        "csubj",
        "dative",
        "dep",
        "det",
        "dobj",
        "expl",
        "intj",
        "mark",
        "meta",
        "neg",
        "nmod",
        "npadvmod",
        "nsubj",
        "nsubjpass",
        "nummod",
        "oprd",
        "parataxis",
        "pcomp",
        "pobj",
        "poss",
        "preconj",
        "predet",
        "prep",
        "prt",
        "punct",
        "quantmod",
        "relcl",
        "xcomp",
    ]
)
#: Fine-grained PTB tags of spaCy's English models (``token.tag_``).
PTB_TAGS = frozenset(
    [
        "$",
        "''",
        ",",
        "-LRB-",
        "-RRB-",
        ".",
        ":",
        "ADD",
        "AFX",
        "CC",
        "CD",
        "DT",
        "EX",
        "FW",
        "HYPH",
        "IN",
        "JJ",
        "JJR",
        "JJS",
        "LS",
        "MD",
        "NFP",
        "NN",
        "NNP",
        "NNPS",
        "NNS",
        "PDT",
        "POS",
        "PRP",
        "PRP$",
        "RB",
        "RBR",
        "RBS",
        "RP",
        "SYM",
        "TO",
        "UH",
        "VB",
        "VBD",
        "VBG",
        "VBN",
        "VBP",
        "VBZ",
        "WDT",
        "WP",
        "WP$",
        "WRB",
        "XX",
        "_SP",
        "``",
    ]
)

DOMAINS = ("imdb", "ecthr_a", "scotus", "eurlex", "ledgar")


def default_resources() -> Path:
    """The repository's ``resources/`` folder (the package is used from its source tree)."""
    return Path(__file__).resolve().parents[3] / "resources"


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


def _read_tsv(path: Path) -> Iterable[tuple[int, list[str]]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    for n, line in enumerate(lines, 1):
        if line.strip() and not line.startswith("#"):
            yield n, line.split("\t")


@dataclass(frozen=True)
class Lexicon:
    entries: tuple[Entry, ...]
    topics: Mapping[str, Mapping[int, tuple[Entry, ...]]]

    @classmethod
    def load(cls, resources: str | Path | None = None) -> Lexicon:
        folder = Path(resources or default_resources()) / "demo"
        entries = []
        for n, cols in _read_tsv(folder / "lexicon.tsv"):
            where = f"{folder / 'lexicon.tsv'}:{n}"
            if len(cols) != 4:
                raise DataError(f"{where}: {len(cols)} columns, expected 4")
            slot, attribute, klass, spec = cols
            entries.append(Entry(slot, attribute, klass, parse_tokens(spec, where)))
        topics: dict[str, dict[int, list[Entry]]] = {}
        for n, cols in _read_tsv(folder / "topics.tsv"):
            where = f"{folder / 'topics.tsv'}:{n}"
            if len(cols) != 3 or not cols[1].isdigit():
                raise DataError(f"{where}: expected dataset, label id, tokens")
            entry = Entry("topic", "-", cols[0], parse_tokens(cols[2], where))
            topics.setdefault(cols[0], {}).setdefault(int(cols[1]), []).append(entry)
        return cls(
            tuple(entries),
            {ds: {k: tuple(v) for k, v in labels.items()} for ds, labels in topics.items()},
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
# Words outside the bias dictionary (hand-written; each with its tag)

SURNAMES = [
    "Alder",
    "Barlow",
    "Castell",
    "Dorsey",
    "Ellery",
    "Farrow",
    "Garland",
    "Hale",
    "Ingram",
    "Jarvis",
    "Kessler",
    "Lowry",
    "Marlow",
    "Norland",
    "Osgood",
    "Pryor",
    "Quill",
    "Rowan",
    "Sutter",
    "Thorne",
    "Upton",
    "Varga",
    "Wexley",
    "Yardley",
]
NEUTRAL_PERSONS = [
    "applicant",
    "neighbour",
    "colleague",
    "employee",
    "tenant",
    "witness",
    "officer",
    "judge",
    "friend",
    "student",
    "patient",
    "client",
    "partner",
    "volunteer",
]
NEUTRAL_PLURALS = ["families", "workers", "residents", "students", "tenants", "pupils", "voters"]
THINGS = [
    "passport",
    "car",
    "house",
    "flat",
    "salary",
    "pension",
    "letter",
    "report",
    "complaint",
    "application",
    "book",
    "phone",
    "bag",
    "contract",
    "ticket",
    "wallet",
    "bicycle",
    "notebook",
]
THINGS_PL = ["documents", "keys", "savings", "papers", "letters"]
THING_ADJ = ["new", "old", "small", "large", "official", "final"]
# (past, participle, base, 3rd person singular present)
VERBS_PERSON = [
    tuple(v.split("/"))
    for v in [
        "helped/helped/help/helps",
        "visited/visited/visit/visits",
        "hired/hired/hire/hires",
        "thanked/thanked/thank/thanks",
        "praised/praised/praise/praises",
        "criticised/criticised/criticise/criticises",
        "interviewed/interviewed/interview/interviews",
        "met/met/meet/meets",
        "called/called/call/calls",
        "questioned/questioned/question/questions",
        "represented/represented/represent/represents",
        "defended/defended/defend/defends",
        "paid/paid/pay/pays",
        "warned/warned/warn/warns",
        "supported/supported/support/supports",
        "ignored/ignored/ignore/ignores",
        "blamed/blamed/blame/blames",
        "invited/invited/invite/invites",
        "dismissed/dismissed/dismiss/dismisses",
        "followed/followed/follow/follows",
        "contacted/contacted/contact/contacts",
        "trusted/trusted/trust/trusts",
        "recognised/recognised/recognise/recognises",
    ]
]
VERBS_THING = [
    tuple(v.split("/"))
    for v in [
        "lost/lost/lose/loses",
        "found/found/find/finds",
        "sold/sold/sell/sells",
        "bought/bought/buy/buys",
        "signed/signed/sign/signs",
        "received/received/receive/receives",
        "reported/reported/report/reports",
        "kept/kept/keep/keeps",
        "returned/returned/return/returns",
        "borrowed/borrowed/borrow/borrows",
        "repaired/repaired/repair/repairs",
        "rented/rented/rent/rents",
    ]
]
VERBS_INTRANS = [
    "arrived",
    "complained",
    "protested",
    "waited",
    "testified",
    "resigned",
    "laughed",
    "objected",
    "left",
    "stayed",
    "cried",
    "agreed",
    "retired",
    "recovered",
]
VERBS_PLURAL_PRESENT = ["live", "work", "vote", "study", "shop", "travel"]
VERBS_DITRANS = ["gave", "sent", "offered", "showed", "lent", "handed"]
VERBS_SAY = [
    "said",
    "claimed",
    "explained",
    "stated",
    "argued",
    "believed",
    "noticed",
    "admitted",
    "insisted",
]
VERBS_REFLEXIVE = ["defended", "blamed", "introduced", "described"]
ADJ_PRED = ["tired", "happy", "nervous", "calm", "busy", "proud"]
ADVERBS = ["quickly", "carefully", "politely", "later", "again"]
PLACES = [
    "city",
    "station",
    "village",
    "hospital",
    "office",
    "border",
    "prison",
    "market",
    "court",
    "school",
    "library",
]
QUANTIFIERS = [
    ("many", "JJ", "amod"),
    ("several", "JJ", "amod"),
    ("some", "DT", "det"),
    ("the", "DT", "det"),
    ("these", "DT", "det"),
    ("two", "CD", "nummod"),
    ("three", "CD", "nummod"),
    ("most", "JJS", "amod"),
]
POSITIVE = [
    "brilliant",
    "wonderful",
    "superb",
    "moving",
    "charming",
    "excellent",
    "delightful",
    "gripping",
    "beautiful",
    "memorable",
    "clever",
    "touching",
]
NEGATIVE = [
    "awful",
    "dull",
    "boring",
    "terrible",
    "clumsy",
    "tedious",
    "weak",
    "dreadful",
    "predictable",
    "disappointing",
    "lifeless",
    "shallow",
]
LIKE = {"pos": ["loved", "enjoyed", "admired"], "neg": ["hated", "disliked", "resented"]}
DEGREE = ["really", "truly", "very", "rather"]
FILM_NOUNS = ["film", "movie", "story"]
FILM_PARTS = ["plot", "script", "ending", "soundtrack", "dialogue", "pacing"]


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
# The writer: phrase builders and sentence frames


class Writer:
    """Draws sentences from the grammar with a seeded RNG.

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
        return self.noun_group(word(self.pick(NEUTRAL_PERSONS), "NN"), race, det=None)

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
        name = tok(self.pick(SURNAMES), "NNP")
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
            head = word(self.pick(NEUTRAL_PLURALS), "NNS")
        head.plural = True
        race = self.term("race_mod") if self.chance(0.3 if kind == "body" else 0.6) else None
        quant = None
        if self.chance(0.7):
            qword, qtag, qdep = self.pick(QUANTIFIERS)
            quant = attach(tok(qword, qtag), head.root, qdep)
        if race is not None:
            attach(race, head.root, "amod" if race.root.tag == "JJ" else "compound")
        return phrase(quant, race, head, root=head.root, gender=head.gender, plural=True)

    def np_thing(self, owner_gender: str | None = None, plural: bool | None = None) -> Phrase:
        """'his passport', 'the new contract', 'her documents'."""
        if plural is None:
            plural = self.chance(0.2)
        head_tok = tok(self.pick(THINGS_PL if plural else THINGS), "NNS" if plural else "NN")
        adj = (
            attach(tok(self.pick(THING_ADJ), "JJ"), head_tok, "amod") if self.chance(0.25) else None
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
        noun = tok(self.pick(PLACES), "NN")
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
            verb = tok(self.pick(VERBS_PERSON)[0], "VBD")
            attach(subj, verb, "nsubj")
            obj = attach(self.np_any("obj"), verb, "dobj")
            return phrase(subj, verb, obj, self.optional_pp(verb), root=verb)
        if kind == "tt":
            verb = tok(self.pick(VERBS_THING)[0], "VBD")
            attach(subj, verb, "nsubj")
            obj = attach(self.np_thing(subj.gender if subj.gender != "n" else None), verb, "dobj")
            return phrase(subj, verb, obj, self.optional_pp(verb), root=verb)
        if kind == "intr":
            verb = tok(self.pick(VERBS_INTRANS), "VBD")
            attach(subj, verb, "nsubj")
            adv = (
                attach(tok(self.pick(ADVERBS), "RB"), verb, "advmod") if self.chance(0.3) else None
            )
            return phrase(subj, verb, adv, self.optional_pp(verb), root=verb)
        if kind == "pass":
            verb = tok(self.pick(VERBS_PERSON)[1], "VBN")
            attach(subj, verb, "nsubjpass")
            aux = attach(tok(self.be(subj), "VBD"), verb, "auxpass")
            agent = attach(tok("by", "IN"), verb, "agent")
            obj = attach(self.np_any("pobj"), agent, "pobj")
            return phrase(subj, aux, verb, agent, obj, root=verb)
        verb = tok(self.be(subj), "VBD")
        attach(subj, verb, "nsubj")
        adj = tok(self.pick(ADJ_PRED), "JJ") if self.chance(0.5) else self.term("adj_pred")
        attach(adj, verb, "acomp")
        return phrase(subj, verb, adj, root=verb)

    def sentence_from(self, body: Phrase, end: str = ".") -> Sentence:
        dot = attach(tok(end, "." if end in ".!?" else end, join=True), body.root, "punct")
        return finish([*body.tokens, dot])

    # --- generic narrative frames
    def s_clause(self) -> Sentence:
        return self.sentence_from(self.clause())

    def s_ditransitive(self) -> Sentence:
        subj = self.np_person("subj")
        verb = tok(self.pick(VERBS_DITRANS), "VBD")
        attach(subj, verb, "nsubj")
        dative = self.pron("obj", self.gender()) if self.chance(0.6) else self.np_person("obj")
        attach(dative, verb, "dative")
        obj = attach(self.np_thing(), verb, "dobj")
        return self.sentence_from(phrase(subj, verb, dative, obj, root=verb))

    def s_relative(self) -> Sentence:
        head = self.np_person("subj") if self.chance(0.7) else self.np_group("subj")
        if head.root.tag == "PRP":  # "he who" is odd: use a full noun phrase
            head = self.noun_group(self.term("job_sg"), det=True)
        who = tok("who", "WP")
        rel = tok(self.pick(VERBS_PERSON)[0], "VBD")
        attach(who, rel, "nsubj")
        robj = self.pron("obj", self.gender()) if self.chance(0.5) else self.np_any("obj")
        attach(robj, rel, "dobj")
        attach(rel, head.root, "relcl")
        subj = phrase(head, who, rel, robj, root=head.root, gender=head.gender, plural=head.plural)
        return self.sentence_from(self.clause(subj))

    def s_ccomp(self) -> Sentence:
        subj = self.np_person("subj")
        say = tok(self.pick(VERBS_SAY), "VBD")
        attach(subj, say, "nsubj")
        inner = self.clause()
        attach(inner, say, "ccomp")
        that = None
        if self.chance(0.7):
            that = attach(tok("that", "IN"), inner.root, "mark")
        return self.sentence_from(phrase(subj, say, that, inner, root=say))

    def s_coordinated_subject(self) -> Sentence:
        a, b = self.np_person("subj"), self.np_any("subj")
        if a.root.tag == "PRP":
            a = self.titled()
        if b.root.tag == "PRP":
            b = self.noun_group(self.term("person_sg"), det=True)
        verb = tok(self.pick(VERBS_THING)[0], "VBD")
        attach(a, verb, "nsubj")
        cc = attach(tok("and", "CC"), a.root, "cc")
        attach(b, a.root, "conj")
        obj = attach(self.np_thing(plural=self.chance(0.5)), verb, "dobj")
        return self.sentence_from(phrase(a, cc, b, verb, obj, root=verb))

    def s_coordinated_verbs(self) -> Sentence:
        """'She lost her passport and asked him for help.' (PRP$ and PRP her/his/him)."""
        g = self.gender()
        subj = self.pron("subj", g) if self.chance(0.5) else self.np_person("subj")
        if subj.root.tag == "PRP" and subj.gender == "n":
            subj.gender = g
        v1 = tok(self.pick(VERBS_THING)[0], "VBD")
        attach(subj, v1, "nsubj")
        obj1 = attach(
            self.np_thing(owner_gender=subj.gender if subj.gender != "n" else g), v1, "dobj"
        )
        cc = attach(tok("and", "CC"), v1, "cc")
        v2 = attach(tok(self.pick(["asked", "begged", "thanked", "called"]), "VBD"), v1, "conj")
        obj2 = attach(self.pron("obj", self.gender()), v2, "dobj")
        pp = self.pp(v2, "for", tok("help", "NN")) if self.chance(0.6) else None
        return self.sentence_from(phrase(subj, v1, obj1, cc, v2, obj2, pp, root=v1))

    def s_attr(self) -> Sentence:
        subj = self.pron("subj", self.gender()) if self.chance(0.4) else self.titled()
        verb = tok(self.be(subj, past=self.chance(0.6)), "VBD")
        if verb.text in ("is", "are"):
            verb.tag = "VBZ" if verb.text == "is" else "VBP"
        attach(subj, verb, "nsubj")
        race = self.term("race_mod") if self.chance(0.7) else None
        head = self.term(self.pick(["job_sg", "job_sg", "person_sg"]))
        attr = self.noun_group(head, race, det=False)
        art = attach(self.article(attr, definite=False), attr.root, "det")  # indefinite
        attach(attr, verb, "attr")
        return self.sentence_from(phrase(subj, verb, art, attr, root=verb))

    def s_reflexive(self) -> Sentence:
        g = self.gender()
        subj = self.pron("subj", g) if self.chance(0.4) else self.np_person("subj")
        if subj.gender in ("m", "f"):
            g = subj.gender
        verb = tok(self.pick(VERBS_REFLEXIVE), "VBD")
        attach(subj, verb, "nsubj")
        refl = attach(self.pron("refl", g), verb, "dobj")
        pp = self.place_pp(verb) if self.chance(0.5) else None
        return self.sentence_from(phrase(subj, verb, refl, pp, root=verb))

    def s_xcomp(self) -> Sentence:
        subj = self.np_any("subj")
        neg = self.chance(0.4)
        if neg:
            main = tok(self.pick(["want", "try", "plan"]), "VB")
            aux = attach(tok("did", "VBD"), main, "aux")
            nt = attach(tok("not", "RB"), main, "neg")
        else:
            main = tok(self.pick(["wanted", "tried", "planned", "refused"]), "VBD")
            aux = nt = None
        attach(subj, main, "nsubj")
        to = tok("to", "TO")
        if self.chance(0.5):
            verb = tok(self.pick(VERBS_PERSON)[2], "VB")
            obj = attach(self.np_any("obj"), verb, "dobj")
        else:
            verb = tok(self.pick(VERBS_THING)[2], "VB")
            obj = attach(self.np_thing(), verb, "dobj")
        attach(to, verb, "aux")
        attach(verb, main, "xcomp")
        return self.sentence_from(phrase(subj, aux, nt, main, to, verb, obj, root=main))

    def s_advcl(self) -> Sentence:
        sub = self.clause()
        main = self.clause()
        if self.chance(0.5):
            when = attach(tok(self.pick(["When", "After", "Before"]), "WRB"), sub.root, "advmod")
            if when.text in ("After", "Before"):
                when.tag, when.dep = "IN", "mark"
            attach(sub, main.root, "advcl")
            comma = attach(tok(",", ",", join=True), main.root, "punct")
            return self.sentence_from(phrase(when, sub, comma, main, root=main.root))
        because = attach(tok(self.pick(["because", "although"]), "IN"), sub.root, "mark")
        attach(sub, main.root, "advcl")
        return self.sentence_from(phrase(main, because, sub, root=main.root))

    def s_appos(self) -> Sentence:
        name = self.titled()
        c1 = attach(tok(",", ",", join=True), name.root, "punct")
        race = self.term("race_mod") if self.chance(0.8) else None
        app = self.noun_group(self.term("job_sg", name.gender), race, det=False)
        art = attach(self.article(app, definite=False), app.root, "det")
        app = phrase(art, app, root=app.root)
        attach(app, name.root, "appos")
        c2 = attach(tok(",", ",", join=True), name.root, "punct")
        subj = phrase(name, c1, app, c2, root=name.root, gender=name.gender)
        return self.sentence_from(self.clause(subj))

    def s_independent_possessive(self) -> Sentence:
        noun = tok(self.pick(["decision", "choice", "car", "house", "idea", "mistake"]), "NN")
        det = attach(tok("the", "DT"), noun, "det")
        verb = tok("was", "VBD")
        attach(phrase(det, noun, root=noun), verb, "nsubj")
        attr = attach(self.pron("indep", self.gender()), verb, "attr")
        return self.sentence_from(phrase(det, noun, verb, attr, root=verb))

    def s_group_present(self) -> Sentence:
        subj = self.np_group("subj")
        verb = tok(self.pick(VERBS_PLURAL_PRESENT), "VBP")
        attach(subj, verb, "nsubj")
        pp = self.place_pp(verb)
        return self.sentence_from(phrase(subj, verb, pp, root=verb))

    def s_gender_extras(self) -> Sentence:
        """Pets, family leave, childhood, cancer: the rest of the gender word list."""
        kind = self.pick(["animal", "leave", "abstract", "cancer", "place", "leave"])
        g = self.gender()
        subj = self.np_person("subj")
        if subj.root.tag == "PRP":
            subj = self.pron("subj", g)
        if kind == "animal":
            verb = tok(self.pick(["fed", "walked", "sold", "found"]), "VBD")
            attach(subj, verb, "nsubj")
            animal = self.term("animal")
            poss = attach(self.pron("poss", g), animal.root, "poss")
            obj = attach(phrase(poss, animal, root=animal.root), verb, "dobj")
            return self.sentence_from(phrase(subj, verb, obj, root=verb))
        if kind == "leave":
            verb = tok("took", "VBD")
            leave = tok("leave", "NN")
            mod = attach(self.term("leave_mod"), leave, "compound")
            attach(subj, verb, "nsubj")
            attach(leave, verb, "dobj")
            return self.sentence_from(
                phrase(subj, verb, mod, leave, self.optional_pp(verb), root=verb)
            )
        if kind == "abstract":
            verb = tok(self.pick(["spoke", "wrote", "talked"]), "VBD")
            attach(subj, verb, "nsubj")
            noun = self.term("abstract")
            det = self.pron("poss", g) if noun.root.text.endswith("hood") else tok("the", "DT")
            attach(det, noun.root, "poss" if isinstance(det, Phrase) else "det")
            pp = self.pp(verb, "about", phrase(det, noun, root=noun.root))
            return self.sentence_from(phrase(subj, verb, pp, root=verb))
        if kind == "cancer":
            verb = tok("treated", "VBN")
            attach(subj, verb, "nsubjpass")
            aux = attach(tok(self.be(subj), "VBD"), verb, "auxpass")
            cancer = tok("cancer", "NN")
            mod = self.term("cancer_mod")
            attach(mod, cancer, "amod" if mod.root.tag == "JJ" else "compound")
            pp = self.pp(verb, "for", phrase(mod, cancer, root=cancer))
            return self.sentence_from(phrase(subj, aux, verb, pp, root=verb))
        verb = tok(self.pick(["came", "returned", "moved"]), "VBD")
        attach(subj, verb, "nsubj")
        prep = "from" if verb.text == "came" else "to"
        pp = self.pp(verb, prep, self.term("place"))
        return self.sentence_from(phrase(subj, verb, pp, root=verb))

    NARRATIVE = (
        (3.0, "s_clause"),
        (1.0, "s_ditransitive"),
        (1.2, "s_relative"),
        (1.0, "s_ccomp"),
        (0.7, "s_coordinated_subject"),
        (1.2, "s_coordinated_verbs"),
        (0.8, "s_attr"),
        (0.5, "s_reflexive"),
        (0.8, "s_xcomp"),
        (0.9, "s_advcl"),
        (0.6, "s_appos"),
        (0.3, "s_independent_possessive"),
        (0.7, "s_group_present"),
        (0.7, "s_gender_extras"),
    )

    def narrative(self, domain: str = "generic") -> Sentence:
        frames = list(self.NARRATIVE)
        if domain == "imdb":
            frames += [(2.0, "s_film_plot")]
        elif domain in ("ecthr_a", "scotus"):
            frames += [(1.5, "s_court_facts")]
        elif domain == "ledgar":
            frames += [(1.5, "s_contract_party")]
        elif domain == "eurlex":
            frames += [(1.0, "s_eu_measure")]
        return getattr(self, self.weighted(frames))()

    # --- domain narrative frames
    def s_film_plot(self) -> Sentence:
        """'The film follows a Jamaican nurse who helps her brother.' (present tense)."""
        noun = tok(self.pick(FILM_NOUNS), "NN")
        det = attach(tok("the", "DT"), noun, "det")
        verb = tok(self.pick(["follows", "shows", "portrays"]), "VBZ")
        attach(phrase(det, noun, root=noun), verb, "nsubj")
        who_np = self.np_person("obj")
        if who_np.root.tag == "PRP":
            who_np = self.noun_group(self.term("person_sg"), det=None)
        attach(who_np, verb, "dobj")
        who = tok("who", "WP")
        rel = tok(self.pick(VERBS_PERSON)[3], "VBZ")
        attach(who, rel, "nsubj")
        g = who_np.gender if who_np.gender != "n" else self.gender()
        robj = self.kin_np(owner_gender=g) if self.chance(0.6) else self.np_group("obj")
        attach(robj, rel, "dobj")
        attach(rel, who_np.root, "relcl")
        return self.sentence_from(phrase(det, noun, verb, who_np, who, rel, robj, root=verb))

    def s_court_facts(self) -> Sentence:
        r = self.rng.random()
        if r < 0.5:  # "The applicant, a Syrian woman, was born in 1975."
            noun = tok("applicant", "NN")
            det = attach(tok("the", "DT"), noun, "det")
            c1 = attach(tok(",", ",", join=True), noun, "punct")
            race = self.term("race_mod") if self.chance(0.85) else None
            app = self.noun_group(self.term(self.pick(["person_sg", "job_sg"])), race, det=False)
            art = attach(self.article(app, definite=False), app.root, "det")
            attach(app, noun, "appos")
            c2 = attach(tok(",", ",", join=True), noun, "punct")
            verb = tok("born", "VBN")
            attach(noun, verb, "nsubjpass")
            aux = attach(tok("was", "VBD"), verb, "auxpass")
            pp = self.year_pp(verb)
            return self.sentence_from(phrase(det, noun, c1, art, app, c2, aux, verb, pp, root=verb))
        # "The applicant's son was arrested by the police in 2004."
        owner = tok("applicant", "NN")
        det = attach(tok("the", "DT"), owner, "det")
        kin = self.term("kin_sg")
        subj = self.genitive(phrase(det, owner, root=owner), kin)
        verb = tok(self.pick(["arrested", "questioned", "detained", "beaten", "released"]), "VBN")
        attach(subj, verb, "nsubjpass")
        aux = attach(tok("was", "VBD"), verb, "auxpass")
        agent = attach(tok("by", "IN"), verb, "agent")
        obj = attach(self.np_any("pobj"), agent, "pobj")
        return self.sentence_from(
            phrase(
                subj,
                aux,
                verb,
                agent,
                obj,
                self.year_pp(verb) if self.chance(0.5) else None,
                root=verb,
            )
        )

    def s_contract_party(self) -> Sentence:
        """'The employee and his wife shall not disclose the documents.'"""
        if self.chance(0.5):
            subj = self.titled()
        else:
            noun = tok(self.pick(["employee", "consultant", "tenant", "buyer", "seller"]), "NN")
            subj = phrase(attach(tok("the", "DT"), noun, "det"), noun, root=noun)
        cc = attach(tok("and", "CC"), subj.root, "cc")
        other = attach(self.kin_np(), subj.root, "conj")
        verb = tok(self.pick(["disclose", "transfer", "assign", "sell"]), "VB")
        shall = attach(tok("shall", "MD"), verb, "aux")
        neg = attach(tok("not", "RB"), verb, "neg") if self.chance(0.6) else None
        attach(subj, verb, "nsubj")
        obj = attach(self.np_thing(), verb, "dobj")
        return self.sentence_from(phrase(subj, cc, other, shall, neg, verb, obj, root=verb))

    def s_eu_measure(self) -> Sentence:
        """'The measure protects old people and disabled children.'"""
        noun = tok(self.pick(["measure", "programme", "directive", "fund"]), "NN")
        det = attach(tok("the", "DT"), noun, "det")
        verb = tok(self.pick(["protects", "supports", "covers", "excludes"]), "VBZ")
        attach(phrase(det, noun, root=noun), verb, "nsubj")
        a = attach(self.np_group("obj"), verb, "dobj")
        if self.chance(0.5):
            cc = attach(tok("and", "CC"), a.root, "cc")
            b = attach(self.np_group("obj"), a.root, "conj")
        else:
            cc = b = None
        return self.sentence_from(phrase(det, noun, verb, a, cc, b, root=verb))

    # --- topic frames: sentences that carry a label
    def topic_phrase(self, dataset: str, label: int) -> Phrase:
        return self.pick(self.lex.topics[dataset][label]).build()

    def topic_sentence(self, dataset: str, label: int | str) -> Sentence:
        if dataset == "imdb":
            return self.sentiment_sentence(str(label))
        topic = self.topic_phrase(dataset, int(label))
        frames = {
            "ecthr_a": (self.t_complained, self.t_examined, self.t_authorities),
            "scotus": (self.t_concerns, self.t_petitioner, self.t_held),
            "eurlex": (self.t_concerns, self.t_adopted, self.t_applies),
            "ledgar": (self.t_governs, self.t_provisions, self.t_comply),
        }[dataset]
        return self.pick(frames)(topic, dataset)

    def _np(self, words: str, tags: str) -> Phrase:
        """A simple noun phrase from words and tags; the last word heads it."""
        ts = [tok(w, t) for w, t in zip(words.split(), tags.split(), strict=True)]
        head = ts[-1]
        for t in ts[:-1]:
            attach(t, head, {"DT": "det", "JJ": "amod", "PRP$": "poss"}.get(t.tag, "compound"))
        return phrase(*ts, root=head)

    def t_complained(self, topic: Phrase, dataset: str) -> Sentence:
        subj = self._np("the applicant", "DT NN") if self.chance(0.6) else self.np_person("subj")
        verb = tok("complained", "VBD")
        attach(subj, verb, "nsubj")
        pp = self.pp(verb, self.pick(["about", "of"]), topic)
        return self.sentence_from(phrase(subj, verb, pp, root=verb))

    def t_examined(self, topic: Phrase, dataset: str) -> Sentence:
        subj = self._np("the Court", "DT NNP")
        verb = tok(self.pick(["examined", "rejected", "upheld"]), "VBD")
        attach(subj, verb, "nsubj")
        obj = self._np(self.pick(["the", "his", "her"]) + " complaint", "DT NN")
        if obj.tokens[0].text in ("his", "her"):
            obj = phrase(
                attach(
                    self.pron("poss", "m" if obj.tokens[0].text == "his" else "f"), obj.root, "poss"
                ),
                obj.root,
                root=obj.root,
            )
        attach(obj, verb, "dobj")
        conc = attach(tok("concerning", "VBG"), obj.root, "prep")
        attach(topic, conc, "pobj")
        return self.sentence_from(phrase(subj, verb, obj, conc, topic, root=verb))

    def t_authorities(self, topic: Phrase, dataset: str) -> Sentence:
        noun = tok("authorities", "NNS")
        race = self.term("race_mod")
        subj = self.noun_group(Phrase([noun], noun, plural=True), race, det=True)
        verb = tok(self.pick(["denied", "ignored", "investigated"]), "VBD")
        attach(subj, verb, "nsubj")
        obj = self.kin_np() if self.chance(0.5) else self.np_group("obj")
        attach(obj, verb, "dobj")
        pp = self.pp(obj.root, "after", self._np("the complaint", "DT NN"))
        about = self.pp(pp.tokens[-1], "about", topic)
        return self.sentence_from(phrase(subj, verb, obj, pp, about, root=verb))

    def t_concerns(self, topic: Phrase, dataset: str) -> Sentence:
        noun = "case" if dataset == "scotus" else self.pick(["regulation", "decision", "directive"])
        subj = self._np(f"this {noun}", "DT NN")
        verb = tok(self.pick(["concerns", "addresses"]), "VBZ")
        attach(subj, verb, "nsubj")
        attach(topic, verb, "dobj")
        pp = self.pp(verb, "for", self.np_group("pobj")) if self.chance(0.6) else None
        return self.sentence_from(phrase(subj, verb, topic, pp, root=verb))

    def t_petitioner(self, topic: Phrase, dataset: str) -> Sentence:
        noun = tok(self.pick(["petitioner", "respondent"]), "NN")
        det = attach(tok("the", "DT"), noun, "det")
        c1 = attach(tok(",", ",", join=True), noun, "punct")
        race = self.term("race_mod") if self.chance(0.8) else None
        app = self.noun_group(self.term(self.pick(["job_sg", "person_sg"])), race, det=False)
        art = attach(self.article(app, definite=False), app.root, "det")
        attach(app, noun, "appos")
        c2 = attach(tok(",", ",", join=True), noun, "punct")
        verb = tok("raised", "VBD")
        attach(noun, verb, "nsubj")
        q = tok("question", "NN")
        qa = attach(tok("a", "DT"), q, "det")
        attach(q, verb, "dobj")
        pp = self.pp(q, "of", topic)
        return self.sentence_from(phrase(det, noun, c1, art, app, c2, verb, qa, q, pp, root=verb))

    def t_held(self, topic: Phrase, dataset: str) -> Sentence:
        subj = self._np("the Court", "DT NNP")
        verb = tok("held", "VBD")
        attach(subj, verb, "nsubj")
        law = self._np("the statute", "DT NN")
        be = tok("was", "VBD")
        that = attach(tok("that", "IN"), be, "mark")
        attach(law, be, "nsubj")
        pp = self.pp(law.root, "on", topic)
        adj = attach(tok(self.pick(["valid", "invalid", "unconstitutional"]), "JJ"), be, "acomp")
        attach(be, verb, "ccomp")
        return self.sentence_from(phrase(subj, verb, that, law, pp, be, adj, root=verb))

    def t_adopted(self, topic: Phrase, dataset: str) -> Sentence:
        subj = self._np("the Commission", "DT NNP")
        verb = tok("adopted", "VBD")
        attach(subj, verb, "nsubj")
        obj = self._np(self.pick(["new rules", "common rules", "new measures"]), "JJ NNS")
        attach(obj, verb, "dobj")
        on = self.pp(obj.root, "on", topic)
        pp = self.pp(verb, "for", self.np_group("pobj"))
        return self.sentence_from(phrase(subj, verb, obj, on, pp, root=verb))

    def t_applies(self, topic: Phrase, dataset: str) -> Sentence:
        subj = self._np("the decision", "DT NN")
        on = self.pp(subj.root, "on", topic)
        verb = tok("applies", "VBZ")
        attach(subj, verb, "nsubj")
        to = self.pp(verb, "to", self.np_group("pobj"))
        return self.sentence_from(phrase(subj, on, verb, to, root=verb))

    def t_governs(self, topic: Phrase, dataset: str) -> Sentence:
        subj = self._np(self.pick(["this section", "this clause", "this article"]), "DT NN")
        verb = tok(self.pick(["governs", "sets out", "covers"]).split()[0], "VBZ")
        attach(subj, verb, "nsubj")
        prt = None
        if verb.text == "sets":
            prt = attach(tok("out", "RP"), verb, "prt")
        attach(topic, verb, "dobj")
        return self.sentence_from(phrase(subj, verb, prt, topic, root=verb))

    def t_provisions(self, topic: Phrase, dataset: str) -> Sentence:
        subj = self._np("the provisions", "DT NNS")
        on = self.pp(subj.root, "on", topic)
        verb = tok("apply", "VB")
        shall = attach(tok("shall", "MD"), verb, "aux")
        attach(subj, verb, "nsubj")
        to = self.pp(verb, "to", self.np_person("pobj"))
        return self.sentence_from(phrase(subj, on, shall, verb, to, root=verb))

    def t_comply(self, topic: Phrase, dataset: str) -> Sentence:
        subj = self.titled() if self.chance(0.5) else self.np_person("subj")
        verb = tok("comply", "VB")
        shall = attach(tok("shall", "MD"), verb, "aux")
        attach(subj, verb, "nsubj")
        terms = self._np("the terms", "DT NNS")
        w = self.pp(verb, "with", terms)
        on = self.pp(terms.root, "on", topic)
        return self.sentence_from(phrase(subj, shall, verb, w, on, root=verb))

    def sentiment_sentence(self, polarity: str) -> Sentence:
        """IMDB: sentences whose evaluative words carry the label ('neg' or 'pos')."""
        words = POSITIVE if polarity == "pos" else NEGATIVE
        kind = self.pick(["copula", "performance", "scene", "thought", "story"])
        if kind == "copula":  # "The film about three old women was really dull and weak."
            noun = tok(self.pick(FILM_NOUNS + FILM_PARTS), "NN")
            about = self.pp(noun, "about", self.np_any("pobj")) if self.chance(0.6) else None
            subj = phrase(attach(tok("the", "DT"), noun, "det"), noun, about, root=noun)
            verb = tok(self.pick(["was", "is"]), "VBD")
            verb.tag = "VBZ" if verb.text == "is" else "VBD"
            attach(subj, verb, "nsubj")
            adj = tok(self.pick(words), "JJ")
            deg = attach(tok(self.pick(DEGREE), "RB"), adj, "advmod") if self.chance(0.5) else None
            attach(adj, verb, "acomp")
            more = None
            if self.chance(0.5):
                cc = attach(tok("and", "CC"), adj, "cc")
                second = attach(
                    tok(self.pick([w for w in words if w != adj.text]), "JJ"), adj, "conj"
                )
                more = phrase(cc, second, root=second)
            return self.sentence_from(phrase(subj, verb, deg, adj, more, root=verb))
        if kind == "performance":
            subj = self.np_person("subj")
            verb = tok("gave", "VBD")
            attach(subj, verb, "nsubj")
            perf = tok("performance", "NN")
            adj = attach(tok(self.pick(words), "JJ"), perf, "amod")
            art = attach(self.article(adj, definite=False), perf, "det")
            attach(perf, verb, "dobj")
            race = self.term("race_mod") if self.chance(0.6) else None
            role = self.noun_group(self.term("job_sg"), race, det=False)
            rart = attach(self.article(role, definite=False), role.root, "det")
            pp = self.pp(perf, "as", phrase(rart, role, root=role.root))
            return self.sentence_from(phrase(subj, verb, art, adj, perf, pp, root=verb))
        if kind == "scene":
            i = tok("I", "PRP")
            verb = tok(self.pick(LIKE[polarity]), "VBD")
            attach(i, verb, "nsubj")
            scene = tok("scene", "NN")
            the = attach(tok("the", "DT"), scene, "det")
            attach(scene, verb, "dobj")
            where = tok("where", "WRB")
            inner = self.clause()
            attach(where, inner.root, "advmod")
            attach(inner, scene, "relcl")
            return self.sentence_from(phrase(i, verb, the, scene, where, inner, root=verb))
        if kind == "thought":
            if self.chance(0.2):  # "My sister thought ..."
                kin = self.term("kin_sg")
                my = attach(tok("my", "PRP$"), kin.root, "poss")
                subj = phrase(my, kin, root=kin.root)
            else:
                subj = self.kin_np() if self.chance(0.4) else self.np_person("subj")
            verb = tok(self.pick(["thought", "said", "felt"]), "VBD")
            attach(subj, verb, "nsubj")
            noun = tok(self.pick(FILM_PARTS + FILM_NOUNS), "NN")
            the = attach(tok("the", "DT"), noun, "det")
            be = tok("was", "VBD")
            attach(noun, be, "nsubj")
            that = attach(tok("that", "IN"), be, "mark")
            adj = attach(tok(self.pick(words), "JJ"), be, "acomp")
            attach(be, verb, "ccomp")
            return self.sentence_from(phrase(subj, verb, that, the, noun, be, adj, root=verb))
        # "The story of a Pakistani woman who helps her son is moving."
        noun = tok("story", "NN")
        the = attach(tok("the", "DT"), noun, "det")
        person = self.noun_group(
            self.term(self.pick(["person_sg", "job_sg"])),
            self.term("race_mod") if self.chance(0.6) else None,
            det=False,
        )
        art = attach(self.article(person, definite=False), person.root, "det")
        of = self.pp(noun, "of", phrase(art, person, root=person.root))
        who = tok("who", "WP")
        rel = tok(self.pick(VERBS_PERSON)[3], "VBZ")
        attach(who, rel, "nsubj")
        g = person.gender if person.gender != "n" else self.gender()
        robj = attach(self.kin_np(owner_gender=g), rel, "dobj")
        attach(rel, person.root, "relcl")
        be = tok("is", "VBZ")
        attach(noun, be, "nsubj")
        adj = attach(tok(self.pick(words), "JJ"), be, "acomp")
        return self.sentence_from(phrase(the, noun, of, who, rel, robj, be, adj, root=be))


def sentence_ok_for_tokenizer(sentence: Sentence, tokenizer) -> bool:
    """True when spaCy's tokenizer splits the sentence's text into exactly its words."""
    return [t.text for t in tokenizer(sentence.text)] == sentence.words
