# Dependency invariant: validity of every mutant against its original (issue 5).


rule check_invariant:
    """Validity of the mutants of one suite and shard (dependency invariant, paper Alg. 3)."""
    input:
        mutants=mutants("{track}", "{dataset}", "{suite}", "{shard}"),
        docs=lambda wc: tested(wc.dataset, wc.shard),
        parser=parser_input,
    output:
        validity=validity("{track}", "{dataset}", "{suite}", "{shard}"),
        stats=f"{RUN}/validity/{{track}}/{{dataset}}/{{suite}}/{{shard}}.json",
    log:
        f"{LOGS}/invariant/{{track}}/{{dataset}}/{{suite}}/{{shard}}.log",
    conda:
        CORE_ENV
    threads: 1
    params:
        pipeline=parser_pipeline(),
        invariant=config["invariant"],
        cache_dir=config["cache_dir"],
    script:
        "../scripts/check_invariant.py"
