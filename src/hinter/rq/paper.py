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
    # RQ4.1 (DESIGN §8): the original artifact's hidden count vs the correctly defined cell.
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
    # RQ3.3, Fig. 8c: Grammarly scores of valid mutants, originals and discarded mutants.
    "valid_score": 79.50,
    "original_score": 78.44,
    "discarded_score": 73.40,
    "valid_over_discarded": "up to 8.31%",
    "sample": "about 10K originals, 68K valid and 67K discarded mutants",
}
