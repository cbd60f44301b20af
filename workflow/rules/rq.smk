# Research questions: one target rule per RQ (tables and figures under results/<run>/rq<N>/).
# Output names, kinds and report entries come from hinter.rq.outputs (the registry); captions are
# the templates workflow/report/rq<N>/<name>.rst, fed by the params of the rule that writes them.
rule rq1_tables:
    """RQ1 tables: Table 3, atomic rates, distinct originals, truth table, Fig. 6 data, examples."""
    input:
        outcomes=all_outcomes(),
        examples=all_hidden_examples(),
    output:
        **rq_files(1, rq_outputs.TABLE),
    log:
        L.logs("rq", "rq1_tables"),
    conda:
        CORE_ENV
    threads: 1
    params:
        **captions.params(1, config),
        outcome_keys=outcome_keys(),
        datasets=DATASETS,
        examples=config["oracle"]["examples"],
    script:
        "../scripts/rq1_tables.py"


rule rq1_figures:
    """RQ1 figures 4–6, drawn from the tables' CSV files."""
    input:
        [L.rq_output(1, name, "csv") for name in rq_outputs.figure_sources(1)],
    output:
        **rq_files(1, rq_outputs.FIGURE),
    log:
        L.logs("rq", "rq1_figures"),
    conda:
        CORE_ENV
    threads: 1
    params:
        **captions.params(1, config),
    script:
        "../scripts/rq1_figures.py"


rule rq1:
    """RQ1 effectiveness: intersectional and hidden error rates (Table 3), Figs. 4–6."""
    input:
        rules.rq1_tables.output,
        rules.rq1_figures.output,


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
