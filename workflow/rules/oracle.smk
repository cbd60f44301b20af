# Metamorphic oracle: bias, hidden bias and truth-table cells per mutant (issue 7).


rule outcomes:
    """Outcome of every mutant of one suite for one model (bias, parents, hidden, pattern)."""
    input:
        unpack(outcome_inputs),
    output:
        outcomes("{model}", "{dataset}", "{suite}"),
    log:
        f"{LOGS}/oracle/{{model}}/{{dataset}}/{{suite}}.log",
    conda:
        CORE_ENV
    threads: 1
    params:
        oracle=config["oracle"],
    script:
        "../scripts/outcomes.py"
