# Research questions: one target rule per RQ (tables and figures under results/<run>/rq<N>/).
# Inputs stay partial until the issues that produce each RQ's tables land.


# RQ1 tables, each written as <name>.csv and <name>.md (names: hinter.rq1.TABLES).
RQ1_TABLES = [
    "table3",
    "atomic_rates",
    "rates_by_suite",
    "distinct_originals",
    "truth_table",
    "correctness",
    "hidden_examples",
]


rule rq1_tables:
    """RQ1 tables: Table 3, atomic rates, distinct originals, truth table, Fig. 6 data, examples."""
    input:
        outcomes=all_outcomes(),
        examples=all_hidden_examples(),
    output:
        [L.rq_output(1, name, ext) for name in RQ1_TABLES for ext in ("csv", "md")],
    log:
        L.logs("rq", "rq1_tables"),
    conda:
        CORE_ENV
    threads: 1
    params:
        outcome_keys=outcome_keys(),
        datasets=DATASETS,
        examples=config["oracle"]["examples"],
    script:
        "../scripts/rq1_tables.py"


rule rq1:
    """RQ1 effectiveness: intersectional and hidden error rates (Table 3), Figs. 4–6."""
    input:
        rules.rq1_tables.output,


rule rq2:
    """RQ2 grammatical validity of originals and mutants (Fig. 8a)."""
    input:
        all_validity_summaries(),


rule rq3:
    """RQ3 the dependency invariant: valid vs discarded, true vs false positives (Figs. 7, 8b, 8c)."""
    input:
        all_validity_summaries(),
        all_outcomes(),


rule rq4:
    """RQ4 atomic vs intersectional bias (Figs. 9, 10)."""
    input:
        all_outcomes(),


rule rq5:
    """RQ5 scalability to three attributes (Table 5)."""
    input:
        all_mutation_summaries(),
        all_validity_summaries(),
        all_outcomes(),


rule rq6:
    """RQ6 sensitivity to runs, prompts and confidence thresholds (Figs. 11, 12)."""
    input:
        all_outcomes(),
        all_variant_outcomes(),
