# Research questions: one target rule per RQ (tables and figures under results/<run>/rq<N>/).
# Output names, kinds and report entries come from hinter.rq.outputs (the registry); captions are
# the templates workflow/report/rq<N>/<name>.rst, fed by the params of the rule that writes them.
rule rq1_tables:
    """RQ1 tables: Table 3, atomic rates, distinct originals, truth table, Fig. 6 data, examples."""
    input:
        outcomes=paths(OUTCOMES),
        examples=targets.hidden_examples(config, L),
    output:
        **rq_files(1, rq_outputs.TABLE),
    log:
        L.logs("rq", "rq1_tables"),
    conda:
        CORE_ENV
    threads: 1
    params:
        **captions.params(1, config),
        files=OUTCOMES,
        datasets=DATASETS,
        examples=config["oracle"]["examples"],
        statistics=config["statistics"],
    script:
        "../scripts/rq1_tables.py"


# Figures: one rule per RQ, drawn from its tables' CSV files by hinter.plots.rq<N>.
for n in (1, 2, 3, 4, 6):  # RQ5 has tables only

    rule:
        """RQ figures (hinter.plots.rq<N>), drawn from the tables' CSV files."""
        name:
            f"rq{n}_figures"
        input:
            [L.rq_output(n, name, "csv") for name in rq_outputs.figure_sources(n)],
        output:
            **rq_files(n, rq_outputs.FIGURE),
        log:
            L.logs("rq", f"rq{n}_figures"),
        conda:
            CORE_ENV
        threads: 1
        params:
            **captions.params(n, config),
            rq=n,
            # RQ6 draws the configured threshold rule (and the other dashed)
            options={"rule": config["sensitivity"]["threshold_rule"]} if n == 6 else {},
        script:
            "../scripts/rq_figures.py"


rule rq1_groups:
    """RQ1 group-level bias: error rates per attribute class and class pair, and a heatmap."""
    input:
        outcomes=paths(OUTCOMES),
        pairs=L.dictionary("pairs.parquet"),
    output:
        **rq_files(1, rq_outputs.TABLE, "groups"),
        **rq_files(1, rq_outputs.FIGURE, "groups"),
    log:
        L.logs("rq", "rq1_groups"),
    conda:
        CORE_ENV
    threads: 1
    params:
        **captions.params(1, config),
        files=OUTCOMES,
        datasets=DATASETS,
        statistics=config["statistics"],
    script:
        "../scripts/rq1_groups.py"


rule rq1:
    """RQ1 effectiveness: intersectional and hidden error rates (Table 3), Figs. 4–6, group bias."""
    input:
        rules.rq1_tables.output,
        rules.rq1_figures.output,
        rules.rq1_groups.output,


rule rq2_tables:
    """RQ2 table: grammar scores of originals vs valid mutants (Fig. 8a data)."""
    input:
        scores=paths(GRAMMAR_SCORES),
    output:
        **rq_files(2, rq_outputs.TABLE),
    log:
        L.logs("rq", "rq2_tables"),
    conda:
        CORE_ENV
    threads: 1
    params:
        **captions.params(2, config),
        files=GRAMMAR_SCORES,
        statistics=config["statistics"],
    script:
        "../scripts/rq2_tables.py"


rule rq2:
    """RQ2 grammatical validity of originals and mutants (Fig. 8a)."""
    input:
        rules.rq2_tables.output,
        rules.rq2_figures.output,


rule rq3_tables:
    """RQ3 tables: valid vs discarded (Fig. 7), true vs false positives (Fig. 8b), grammar
    scores of valid vs discarded mutants (Fig. 8c)."""
    input:
        summaries=paths(VALIDITY_SUMMARIES),
        mutants=paths(SHARDS, "mutants"),
        validity=paths(SHARDS, "validity"),
        outcomes=paths(OUTCOMES),
        scores=paths(GRAMMAR_SCORES),
    output:
        **rq_files(3, rq_outputs.TABLE),
    log:
        L.logs("rq", "rq3_tables"),
    conda:
        CORE_ENV
    threads: 1
    params:
        **captions.params(3, config),
        summaries=VALIDITY_SUMMARIES,
        shards=SHARDS,
        files=OUTCOMES,
        scores=GRAMMAR_SCORES,
        datasets=DATASETS,
        statistics=config["statistics"],
        discarded_models=plan.discarded_models(config),
    script:
        "../scripts/rq3_tables.py"


rule rq3:
    """RQ3 the dependency invariant: valid vs discarded, true vs false positives (Figs. 7, 8b, 8c)."""
    input:
        rules.rq3_tables.output,
        rules.rq3_figures.output,


rule rq4_tables:
    """RQ4 tables: Fig. 9's counts (with the artifact's condition) and Fig. 10's regions."""
    input:
        outcomes=paths(OUTCOMES),
    output:
        **rq_files(4, rq_outputs.TABLE),
    log:
        L.logs("rq", "rq4_tables"),
    conda:
        CORE_ENV
    threads: 1
    params:
        **captions.params(4, config),
        files=OUTCOMES,
        models=MODELS,
        datasets=DATASETS,
        statistics=config["statistics"],
        order=RQ_ORDER,
    script:
        "../scripts/rq4_tables.py"


rule rq4:
    """RQ4 atomic vs intersectional bias (Figs. 9, 10)."""
    input:
        rules.rq4_tables.output,
        rules.rq4_figures.output,


rule rq5_tables:
    """RQ5 Table 5 (atomic, 2- and 3-intersectional) and a Table-6-style example."""
    input:
        outcomes=paths(targets.rq5_outcomes(config, L)),
        documents=paths(targets.rq5_documents(config, L)),
        examples=targets.rq5_examples(config, L),
    output:
        **rq_files(5, rq_outputs.TABLE),
    log:
        L.logs("rq", "rq5_tables"),
    conda:
        CORE_ENV
    threads: 1
    params:
        **captions.params(5, config),
        files=targets.rq5_outcomes(config, L),
        runs=plan.higher_order_runs(config),
        documents=targets.rq5_documents(config, L),
        models=MODELS,
        datasets=DATASETS,
        statistics=config["statistics"],
        examples=config["oracle"]["examples"],
    script:
        "../scripts/rq5_tables.py"


rule rq5:
    """RQ5 scalability to three attributes (Tables 5, 6)."""
    input:
        rules.rq5_tables.output,


rule rq6_tables:
    """RQ6 tables: rates per variant (Fig. 11) and under confidence thresholds (Fig. 12)."""
    input:
        variants=paths(targets.rq6_variant_outcomes(config, L)),
        thresholds=paths(targets.rq6_threshold_outcomes(config, L)),
    output:
        **rq_files(6, rq_outputs.TABLE),
    log:
        L.logs("rq", "rq6_tables"),
    conda:
        CORE_ENV
    threads: 1
    params:
        **captions.params(6, config),
        variant_files=targets.rq6_variant_outcomes(config, L),
        threshold_files=targets.rq6_threshold_outcomes(config, L),
        models=MODELS,
        datasets=DATASETS,
        variants=plan.variant_names(config),
        thresholds=config["sensitivity"]["thresholds"],
        rule=config["sensitivity"]["threshold_rule"],
        statistics=config["statistics"],
        order=RQ_ORDER,
        runs_decoding=config["sensitivity"]["runs_decoding"],
    script:
        "../scripts/rq6_tables.py"


rule rq6:
    """RQ6 sensitivity to runs, prompts and confidence thresholds (Figs. 11, 12)."""
    input:
        rules.rq6_tables.output,
        rules.rq6_figures.output,


# -- the paper vs this run (hinter.rq.comparison): results/<run>/paper/ ---------------------------
rule paper_comparison:
    """Every headline number of the paper and Table 3's cells beside this run's values."""
    input:
        tables=[
            L.rq_output(rq, name, "csv")
            for rq, names in rq_outputs.COMPARISON_SOURCES.items()
            for name in names
        ],
        grammar=paths(GRAMMAR_SCORES),
    output:
        **rq_files(rq_outputs.PAPER, rq_outputs.TABLE),
    log:
        L.logs("rq", "paper_comparison"),
    conda:
        CORE_ENV
    threads: 1
    params:
        **captions.params(rq_outputs.PAPER, config),
        scores=GRAMMAR_SCORES,
        statistics=config["statistics"],
        config_files=[os.path.relpath(f, workflow.basedir) for f in workflow.configfiles],
    script:
        "../scripts/paper_comparison.py"
