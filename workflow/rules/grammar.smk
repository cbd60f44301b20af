# Grammatical validity (RQ2, RQ3.3): a balanced sample of originals, valid and discarded
# mutants per (model, dataset), labelled by the model's outcomes and scored by a grammar
# checker (hinter.grammar). With grammar.sample.disjoint, each model of a dataset draws
# from its own seeded share of the documents (document_share).


rule grammar_scores:
    """Grammar scores of the balanced sample of one (model, dataset)."""
    input:
        unpack(J.grammar),
    output:
        scores=L.grammar_scores("{model}", "{dataset}", "{variant}"),
        summary=L.grammar_summary("{model}", "{dataset}", "{variant}"),
    log:
        L.logs("grammar", "{model}", "{variant}", "{dataset}"),
    benchmark:
        L.benchmark("grammar_scores", "{model}", "{variant}", "{dataset}")
    conda:
        CORE_ENV
    threads: 1
    params:
        suites=J.model_suites,
        grammar=config["grammar"],
        cache_dir=config["cache_dir"],
        share=J.document_share,
    script:
        "../scripts/grammar_scores.py"


rule grammar:
    """Target: the grammar scores of every sampled (model, dataset)."""
    input:
        paths(GRAMMAR_SCORES),
