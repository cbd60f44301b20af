"""The demo grammar's sentence frames: narrative, domain, topic (label-bearing) and sentiment.

``Writer`` adds the frames to the phrase builders of `grammar`: generic narrative sentences,
each domain's own narrative (court facts, film plots, contract parties, EU measures), the topic
frames that carry a legal label and the IMDB sentiment sentences that carry its polarity.
"""

from __future__ import annotations

from collections.abc import Sequence

from hinter.demo.grammar import Phrase, PhraseWriter, Sentence, Token, attach, phrase, tok


class Writer(PhraseWriter):
    """Draws sentences from the grammar with a seeded RNG.

    ``bias`` maps an attribute to the dictionary classes its slots prefer with probability
    ``strength`` (the corpus generator's planted bias).
    """

    # --- generic narrative frames
    def s_clause(self) -> Sentence:
        return self.sentence_from(self.clause())

    def s_ditransitive(self) -> Sentence:
        subj = self.np_person("subj")
        verb = tok(self.pick(self.words.verbs_ditrans), "VBD")
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
        rel = tok(self.pick(self.words.verbs_person)[0], "VBD")
        attach(who, rel, "nsubj")
        robj = self.pron("obj", self.gender()) if self.chance(0.5) else self.np_any("obj")
        attach(robj, rel, "dobj")
        attach(rel, head.root, "relcl")
        subj = phrase(head, who, rel, robj, root=head.root, gender=head.gender, plural=head.plural)
        return self.sentence_from(self.clause(subj))

    def s_ccomp(self) -> Sentence:
        subj = self.np_person("subj")
        say = tok(self.pick(self.words.verbs_say), "VBD")
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
        verb = tok(self.pick(self.words.verbs_thing)[0], "VBD")
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
        v1 = tok(self.pick(self.words.verbs_thing)[0], "VBD")
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
        verb = tok(self.pick(self.words.verbs_reflexive), "VBD")
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
            verb = tok(self.pick(self.words.verbs_person)[2], "VB")
            obj = attach(self.np_any("obj"), verb, "dobj")
        else:
            verb = tok(self.pick(self.words.verbs_thing)[2], "VB")
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
        verb = tok(self.pick(self.words.verbs_plural_present), "VBP")
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
        noun = tok(self.pick(self.words.film_nouns), "NN")
        det = attach(tok("the", "DT"), noun, "det")
        verb = tok(self.pick(["follows", "shows", "portrays"]), "VBZ")
        attach(phrase(det, noun, root=noun), verb, "nsubj")
        who_np = self.np_person("obj")
        if who_np.root.tag == "PRP":
            who_np = self.noun_group(self.term("person_sg"), det=None)
        attach(who_np, verb, "dobj")
        who = tok("who", "WP")
        rel = tok(self.pick(self.words.verbs_person)[3], "VBZ")
        attach(who, rel, "nsubj")
        g = who_np.gender if who_np.gender != "n" else self.gender()
        robj = self.kin_np(owner_gender=g) if self.chance(0.6) else self.np_group("obj")
        attach(robj, rel, "dobj")
        attach(rel, who_np.root, "relcl")
        return self.sentence_from(phrase(det, noun, verb, who_np, who, rel, robj, root=verb))

    def described_party(self, noun: Token, p_race: float, heads: Sequence[str]) -> Phrase:
        """'the applicant, a Syrian woman,': a party of a case with an appositive in commas."""
        det = attach(tok("the", "DT"), noun, "det")
        c1 = attach(tok(",", ",", join=True), noun, "punct")
        race = self.term("race_mod") if self.chance(p_race) else None
        app = self.noun_group(self.term(self.pick(heads)), race, det=False)
        art = attach(self.article(app, definite=False), app.root, "det")
        attach(app, noun, "appos")
        c2 = attach(tok(",", ",", join=True), noun, "punct")
        return phrase(det, noun, c1, art, app, c2, root=noun)

    def s_court_facts(self) -> Sentence:
        r = self.rng.random()
        if r < 0.5:  # "The applicant, a Syrian woman, was born in 1975."
            subj = self.described_party(tok("applicant", "NN"), 0.85, ("person_sg", "job_sg"))
            verb = tok("born", "VBN")
            attach(subj, verb, "nsubjpass")
            aux = attach(tok("was", "VBD"), verb, "auxpass")
            pp = self.year_pp(verb)
            return self.sentence_from(phrase(subj, aux, verb, pp, root=verb))
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
        subj = self.described_party(noun, 0.8, ("job_sg", "person_sg"))
        verb = tok("raised", "VBD")
        attach(subj, verb, "nsubj")
        q = tok("question", "NN")
        qa = attach(tok("a", "DT"), q, "det")
        attach(q, verb, "dobj")
        pp = self.pp(q, "of", topic)
        return self.sentence_from(phrase(subj, verb, qa, q, pp, root=verb))

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
        words = self.words.positive if polarity == "pos" else self.words.negative
        kind = self.pick(["copula", "performance", "scene", "thought", "story"])
        if kind == "copula":  # "The film about three old women was really dull and weak."
            noun = tok(self.pick(self.words.film_nouns + self.words.film_parts), "NN")
            about = self.pp(noun, "about", self.np_any("pobj")) if self.chance(0.6) else None
            subj = phrase(attach(tok("the", "DT"), noun, "det"), noun, about, root=noun)
            verb = tok(self.pick(["was", "is"]), "VBD")
            verb.tag = "VBZ" if verb.text == "is" else "VBD"
            attach(subj, verb, "nsubj")
            adj = tok(self.pick(words), "JJ")
            deg = (
                attach(tok(self.pick(self.words.degree), "RB"), adj, "advmod")
                if self.chance(0.5)
                else None
            )
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
            verb = tok(self.pick(self.words.like(polarity)), "VBD")
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
            noun = tok(self.pick(self.words.film_parts + self.words.film_nouns), "NN")
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
        rel = tok(self.pick(self.words.verbs_person)[3], "VBZ")
        attach(who, rel, "nsubj")
        g = person.gender if person.gender != "n" else self.gender()
        robj = attach(self.kin_np(owner_gender=g), rel, "dobj")
        attach(rel, person.root, "relcl")
        be = tok("is", "VBZ")
        attach(noun, be, "nsubj")
        adj = attach(tok(self.pick(words), "JJ"), be, "acomp")
        return self.sentence_from(phrase(the, noun, of, who, rel, robj, be, adj, root=be))
