"""The paper's published numbers (``002``, the journal version), quoted by the report's captions
so that a run can be compared with them. Percentages, as printed in the paper.

Pure data (no imports): the Snakefile reads it at start-up to feed the caption templates.
"""

from __future__ import annotations

RQ1 = {
    # Table 3 and Fig. 4a: intersectional error rate I and hidden rate H, all datasets pooled.
    "intersectional_error_rate": 14.61,
    "hidden_rate": 16.62,
    "intersectional_error_rate_range": "12.64–17.26",
    # keyed by the model names of config/config.yaml
    "intersectional_error_rate_by_model": {
        "llama2": 12.64,
        "gpt35": 17.26,
        "legal-bert": 14.11,
        "bert": 14.22,
        "deberta": 13.69,
        "roberta": 15.57,
    },
    "hidden_rate_by_model": {
        "llama2": 16.99,
        "gpt35": 18.19,
        "legal-bert": 38.46,
        "bert": 8.36,
        "deberta": 12.45,
        "roberta": 6.64,
    },
    # Fig. 4b: originals with at least one intersectional bias.
    "distinct_intersectional_originals": 39.88,
    # Fig. 5: atomic error rate and originals with at least one atomic bias.
    "atomic_error_rate": 9.33,
    "atomic_error_rate_gpt35": 21.71,
    "distinct_atomic_originals": 38.43,
    "distinct_atomic_originals_gpt35": 35.78,
    # Fig. 6: outcomes of bias-inducing originals vs their mutants (right / wrong / no answer).
    "correctness": {
        "intersectional": {
            "original": {"right": 9.60, "wrong": 84.68, "no_answer": 5.72},
            "mutant": {"right": 8.53, "wrong": 83.21, "no_answer": 8.27},
        },
        "hidden": {
            "original": {"right": 13.92, "wrong": 79.34, "no_answer": 6.74},
            "mutant": {"right": 9.20, "wrong": 79.43, "no_answer": 11.37},
        },
    },
    # RQ4.1 (docs/design.md §8): the original artifact's hidden count vs the correctly defined cell.
    "artifact_hidden": "57,160 of 336,348",
    "correct_hidden": "89,564 (26.6%)",
    # Group-level bias, MUTAINT (000) Table 4 (Legal LLMs): groups above their scope's mean.
    "group_bias": {"gab": "8/16", "gib": "35/76", "gib_vs_gab": "3.3X"},
}

RQ2 = {
    # Fig. 8a: Grammarly's weighted mean score, intersectional bias testing.
    "original_score": 78.73,
    "mutant_score": 79.50,
    # error-inducing vs benign inputs, atomic bias testing
    "bias_inducing_score_atomic": 82.72,
    "benign_score_atomic": 83.74,
    "sample": "about 10K originals and 68K valid mutants",
}

RQ3 = {
    # RQ3.1, Fig. 7: mutants discarded by the dependency invariant.
    "discarded_share": 97.58,
    "valid_share": 2.42,
    "discarded_of_generated": "129M of 132M",
    # RQ3.2, Fig. 8b: bias found among discarded (false) vs valid (true) mutants.
    "false_positives": "7,604,247",
    "true_positives": "779,224",
    "false_positive_share": 90.71,
    "false_positives_intersectional": "6,865,033",
    "false_positives_atomic": "739,214",
    # RQ3.3, Fig. 8c: Grammarly scores of valid mutants vs their originals (as RQ2), and of
    # discarded mutants vs theirs (002 l.399-402: "79.50% vs. 78.73%", "78.44% vs. 73.40%").
    "valid_score": 79.50,
    "valid_original_score": 78.73,
    "original_score": 78.44,
    "discarded_score": 73.40,
    "valid_over_discarded": "up to 8.31%",
    "sample": "about 10K originals, 68K valid and 67K discarded mutants",
}

# -- Paper vs this run (hinter.rq.comparison) ----------------------------------------------------
# Table 3, every (dataset, model) cell: (I, H) in percent; None = N/A (the model was not tested
# there). Keys are the dataset and model names of config/config.yaml; "Total" pools the models.
# Its "All" row (the pooled datasets) is RQ1's intersectional_error_rate(_by_model) and
# hidden_rate(_by_model) above.
TABLE3_MODELS = ("llama2", "gpt35", "legal-bert", "bert", "deberta", "roberta", "Total")
TABLE3 = {
    dataset: dict(zip(TABLE3_MODELS, cells, strict=True))
    for dataset, cells in {
        "ecthr_a": ((51.74, 13.24), (59.03, 13.70), (5.02, 45.12), (4.65, 15.35), (5.10, 17.26),
                    (3.75, 18.18), (11.37, 18.06)),
        "ledgar": ((25.35, 12.37), (7.04, 0.00), (0.00, 0.00), (0.00, 0.00), (0.00, 0.00),
                   (1.05, 0.00), (4.58, 12.24)),
        "scotus": ((12.32, 26.33), (21.32, 19.60), (1.02, 40.87), (2.34, 13.20), (4.76, 5.86),
                   (2.25, 8.30), (10.60, 18.92)),
        "eurlex": ((89.62, 1.35), (91.00, 0.49), (19.99, 37.53), (20.28, 7.46), (19.02, 11.86),
                   (22.97, 5.62), (21.66, 14.73)),
        "imdb": ((3.52, 28.38), (7.12, 28.03), None, None, None, None, (5.43, 28.13)),
    }.items()
}  # fmt: skip

RQ4 = {
    # Fig. 9a: bias-inducing intersectional mutants without a bias-inducing atomic parent, as the
    # paper reports them (the original artifact's condition, docs/design.md §8) and correctly
    # defined.
    "inter_without_atomic": 16.99,
    "inter_without_atomic_counts": "57,160 of 336,348",
    "inter_without_atomic_correct": "89,564 (26.6%)",
    # The models behind Fig. 9's counts: the artifact's truth tables exist for these three only
    # (docs/design.md §8; the paper does not name them), keyed by the model names of
    # config/config.yaml.
    "scope_models": ("llama2", "gpt35", "legal-bert"),
    # Fig. 9b: bias-inducing atomic mutants with a bias-inducing intersectional counterpart.
    "atomic_with_child": 83.43,
    "atomic_with_child_counts": "58,925 of 70,630",
    "atomic_without_child": "11,705",
    # Fig. 10: shares of bias-inducing originals (percent of the union per attribute pair).
    "only_intersectional_range": "5.98–9.71",
    "only_intersectional_max": "9.71% (376, Body × Gender)",
    "both_max": "49.64% (Body × Race)",
    "only_atomic_range": "4.64–14.04",
}

RQ5 = {
    # Table 5: the first 10K IMDB reviews, Llama 2, by number of attributes.
    "table5": {
        1: {
            "generated": 500_157,
            "valid": 62_601,
            "valid_share": 12.52,
            "errors": 1_536,
            "error_rate": 2.45,
            "hidden": None,
            "hidden_rate": None,
        },
        2: {
            "generated": 9_447_982,
            "valid": 132_150,
            "valid_share": 1.40,
            "errors": 3_899,
            "error_rate": 2.95,
            "hidden": 868,
            "hidden_rate": 22.26,
        },
        3: {
            "generated": 46_507_573,
            "valid": 249_886,
            "valid_share": 0.54,
            "errors": 9_851,
            "error_rate": 3.94,
            "hidden": 331,
            "hidden_rate": 3.36,
        },
    },
}

# The other headline numbers of docs/design.md §7, as numbers, read from the dicts above (one
# source).
HEADLINES = {
    # RQ2: pooled grammar score of the originals vs the valid mutants (Grammarly), percent.
    "grammar_originals": RQ2["original_score"],
    "grammar_valid_mutants": RQ2["mutant_score"],
    # RQ3.1: mutants discarded by the dependency invariant, percent of the generated mutants.
    "discarded_share": RQ3["discarded_share"],
    # RQ3.2: bias-inducing discarded mutants (false positives) vs bias-inducing valid ones.
    "false_positives": int(RQ3["false_positives"].replace(",", "")),
    "true_positives": int(RQ3["true_positives"].replace(",", "")),
    # RQ5 (Table 5, Llama 2 on the first 10K IMDB reviews): error rates and hidden rates.
    "rq5_error_rate": {n: row["error_rate"] for n, row in RQ5["table5"].items()},
    "rq5_hidden_rate": {
        n: row["hidden_rate"] for n, row in RQ5["table5"].items() if row["hidden_rate"]
    },
}

RQ6 = {
    # Fig. 11a: three runs of the default prompt, Llama 2.
    "runs_imdb_error_rate": "3.43–3.44 (variance 0)",
    "runs_scotus_error_rate": "4.0–4.18 (variance 0.01)",
    "runs_scotus_hidden_variance": 0.10,
    "runs_imdb_hidden": "mean 25.55, variance 0.46",
    # Fig. 11b: the default and two alternative prompt templates.
    "prompts_imdb_error_rate": "3.34–3.44 (mean 3.41, variance 0)",
    "prompts_hidden_variance": "IMDB 10.59, SCOTUS 3.48",
    # Fig. 12: rates fall as the confidence threshold rises, except SCOTUS's error rate above 90%.
    "threshold_trend": (
        "the hidden rate falls as the threshold rises on both datasets, the error rate on IMDB; "
        "SCOTUS's error rate rises above a 90% threshold"
    ),
    # Fig. 12 (c), (d): the paper reads SCOTUS's rise as Llama 2's low accuracy there.
    "accuracy_trend": "Llama 2's accuracy is low on SCOTUS (Fig. 12 c, d)",
}
