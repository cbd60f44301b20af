"""001 Table 5 transcribed: the LLMs' rows beside the encoders' (review 2026-11-24, F19)."""

from __future__ import annotations

from hinter.models.performance import read_reported

# 001 Table 5, "Our paper" columns (μ-F1 / m-F1, percent), as printed (IMDB is 92.9/93.0 for both)
LLM_ROWS = {
    "meta-llama/Llama-2-7b-chat-hf": {
        "ecthr_a": (56.8, 50.2), "scotus": (30.3, 16.4), "eurlex": (20.7, 13.6),
        "ledgar": (41.4, 38.8), "imdb": (92.9, 93.0),
    },
    "gpt-3.5-turbo-0125": {
        "ecthr_a": (63.1, 62.8), "scotus": (53.4, 45.9), "eurlex": (30.6, 28.2),
        "ledgar": (66.8, 60.0), "imdb": (92.9, 93.0),
    },
}  # fmt: skip


def test_the_llms_rows_of_table_5_are_transcribed(repo):
    reported = read_reported(repo / "resources" / "lexglue" / "reported_scores.csv")
    for checkpoint, by_dataset in LLM_ROWS.items():
        for dataset, (micro, macro) in by_dataset.items():
            got = reported[("hinter", checkpoint, dataset)]
            assert (got["micro_f1"], got["macro_f1"]) == (micro, macro), (checkpoint, dataset)
    assert not any(source == "lexglue" for source, c, _ in reported if c in LLM_ROWS)
