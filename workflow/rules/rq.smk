# Research questions: one target rule per RQ (tables and figures under results/<run>/rq<N>/).
# Inputs stay partial until the issues that produce each RQ's tables land.


rule rq1:
    """RQ1 effectiveness: intersectional and hidden error rates (Table 3), Figs. 4–6."""
    input:
        all_outcomes(),


rule rq2:
    """RQ2 grammatical validity of originals and mutants (Fig. 8a)."""
    input:
        all_validity(),


rule rq3:
    """RQ3 the dependency invariant: valid vs discarded, true vs false positives (Figs. 7, 8b, 8c)."""
    input:
        all_validity(),
        all_outcomes(),


rule rq4:
    """RQ4 atomic vs intersectional bias (Figs. 9, 10)."""
    input:
        all_outcomes(),


rule rq5:
    """RQ5 scalability to three attributes (Table 5)."""
    input:
        all_validity(),


rule rq6:
    """RQ6 sensitivity to runs, prompts and confidence thresholds (Figs. 11, 12)."""
    input:
        all_outcomes(),
