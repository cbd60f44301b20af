# Metamorphic oracle: bias, hidden bias and truth-table cells per mutant (docs/design.md §2).


rule outcomes:
    """Outcome of every mutant of one suite for one model (bias, parents, hidden, pattern)."""
    input:
        unpack(J.outcome),
    output:
        L.outcomes("{model}", "{dataset}", "{suite}", "{variant}"),
    log:
        L.logs("oracle", "{model}", "{variant}", "{dataset}", "{suite}"),
    conda:
        CORE_ENV
    threads: 1
    params:
        threshold=config["oracle"]["confidence_threshold"],
    script:
        "../scripts/outcomes.py"


rule hidden_examples:
    """A few hidden-bias examples of one intersectional suite, rendered like paper Table 1."""
    input:
        outcomes=L.outcomes("{model}", "{dataset}", "{suite}", "{variant}"),
        mutants=J.outcome_mutants,
        docs=J.outcome_docs,
        meta=J.meta,
    output:
        L.examples("{model}", "{dataset}", "{suite}", "{variant}"),
    log:
        L.logs("oracle", "examples", "{model}", "{variant}", "{dataset}", "{suite}"),
    wildcard_constraints:
        suite=r"inter-[A-Za-z0-9_+-]+",
    conda:
        CORE_ENV
    threads: 1
    params:
        examples=config["oracle"]["examples"],
        context=config["oracle"]["example_context"],
    script:
        "../scripts/hidden_examples.py"
