"""LABE on the released files of ../shared/real/labe (read in place, never copied): the
generation files' groups, the prompt copies the released outputs begin with, the splitter
against the authors' split, and Table 1's pipeline (estimates, paper beside ours, orderings)
with a keyword labeller standing in for the classifier. Skipped when the folder is absent."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from hinter.labe import data, metric, paper, score, table1

LABE = Path(__file__).resolve().parents[2].parent / "shared" / "real" / "labe"
pytestmark = pytest.mark.skipif(
    not (LABE / "generations").is_dir(),
    reason=f"{LABE} (004's released LABE files) is not beside the repository",
)
GEN = {m: LABE / "generations" / f"{m}_professor.csv" for m in ("chatgpt", "mistral", "llama3")}


@pytest.fixture(scope="module")
def released() -> dict[str, pd.DataFrame]:
    return {m: data.read_generations(p) for m, p in GEN.items()}


def test_the_released_files_hold_8_groups_of_75(released):
    for frame in released.values():
        counts = frame.groupby(["race", "gender"]).size()
        assert len(counts) == 8 and set(counts) == {75}


def test_the_leading_prompt_copy_is_stripped_where_the_outputs_begin_with_it(released):
    for model, frame in released.items():
        starts = [
            t.lstrip().startswith(p) for t, p in zip(frame["text"], frame["prompt"], strict=True)
        ]
        cleaned = [
            metric.clean_generation(t, p)
            for t, p in zip(frame["text"], frame["prompt"], strict=True)
        ]
        assert not any(c.startswith(p) for c, p in zip(cleaned, frame["prompt"], strict=True))
        if model == "chatgpt":  # the API returns the reply only
            assert sum(starts) == 0
        else:  # the transformers pipeline returns prompt + reply
            assert sum(starts) / len(starts) > 0.9, model
            assert all("<return>" not in c for c in cleaned)


def test_our_splitter_agrees_with_the_authors_on_most_reviews():
    reviews = data.read_human_reviews(LABE / "human" / "ratemyprofessor.csv").head(300)
    got = score.splitter_agreement(
        list(reviews["text"]), list(reviews["authors_sentences"]), metric.SentenceSplitter()
    )
    assert got["texts"] == 300
    # the authors' splitter cuts "!!" into "!" fragments, which ours keeps with the sentence
    assert 0.6 < got["identical_share"] < 1.0
    assert got["texts_fewer_sentences"] > got["texts_more_sentences"]


class KeywordLabeller:
    """Agentic iff the sentence has a word of achievement: a stand-in with known behaviour."""

    WORDS = ("knowledge", "expert", "excellent", "research", "lead", "achiev", "rigor", "challeng")

    def label_texts(self, split):
        return [[int(any(w in s.lower() for w in self.WORDS)) for s in sents] for sents in split]


def test_table_1_pipeline_on_released_texts(released):
    splitter = metric.SentenceSplitter()
    scored = {
        m: score.score_frame(f, KeywordLabeller(), splitter, limit=6) for m, f in released.items()
    }
    for frame in scored.values():
        assert len(frame) == 48 and frame["sentences"].gt(0).all()
        # the per-text gap is the metric's, recomputed from the stored counts
        expect = (2 * frame["agentic"] - frame["sentences"]) / frame["sentences"]
        assert (frame["ratio_gap"] - expect).abs().max() < 1e-12
    est = table1.estimates(scored, resamples=30, seed=1, human=None)
    comp = table1.comparison(est)
    assert len(comp) == 12
    assert (
        dict(zip(comp["dimension"], comp["paper"], strict=True))["overall"] == 92.94
    )  # Llama 3, last
    for m, frame in scored.items():
        ours = comp[(comp["llm"] == m) & (comp["dimension"] == "intersectional")]["ours"].item()
        assert ours == pytest.approx(metric.bias(frame)["intersectional"])
    order = table1.orderings(comp)
    assert order["paper"].all()  # 004's claims hold in 004's own numbers
    assert order["claim"].iloc[0] == "Llama 3 > Mistral > ChatGPT (overall)"
    doc = table1.table1(est, {"model": "stub", "test": {"micro_f1": 0.5, "macro_f1": 0.5}})
    assert "004 Table 1" in doc.markdown and "91.69" in doc.markdown
    assert set(paper.TABLE1_PROFESSOR) == set(comp["llm"])
