"""004's reported numbers that a run is compared with (never computed, only quoted)."""

from __future__ import annotations

# 004 Table 1, professor-review rows: variance of the group means of ratio gaps (percent).
TABLE1_PROFESSOR = {
    "chatgpt": {"gender": 22.25, "race": 19.35, "intersectional": 32.14, "overall": 24.58},
    "mistral": {"gender": 36.61, "race": 48.33, "intersectional": 63.14, "overall": 49.36},
    "llama3": {"gender": 68.31, "race": 85.51, "intersectional": 125.00, "overall": 92.94},
}
DISPLAY = {"chatgpt": "ChatGPT", "mistral": "Mistral", "llama3": "Llama 3", "human": "Human"}

# 004 Table 12: the fine-tuned BERT-base agency classifier on LAC's test split (percent).
TABLE12_BERT = {"accuracy": 91.69, "macro_f1": 91.69, "micro_f1": 91.63, "weighted_f1": 91.68}

# The orderings 004 §4 states for professor reviews, checked on a run (not assumed):
# Llama 3 > Mistral > ChatGPT overall, and intersectional the largest dimension of each LLM.
OVERALL_ORDER = ("llama3", "mistral", "chatgpt")
