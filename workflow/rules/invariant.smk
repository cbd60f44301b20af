# Dependency invariant: validity of every mutant against its original (docs/design.md §2).


rule check_invariant:
    """Validity of the mutants of one suite and shard (dependency invariant, paper Alg. 3)."""
    input:
        mutants=L.mutants("{track}", "{dataset}", "{suite}", "{shard}"),
        docs=J.shard_docs,
        parser=parser_input,
        # An intersectional suite waits for its attributes' atomic suites: the parse cache then
        # holds its parents' sentences, and its parents' verdicts must agree with theirs.
        atomic=J.atomic_validity,
    output:
        validity=L.validity("{track}", "{dataset}", "{suite}", "{shard}"),
        stats=L.validity_stats("{track}", "{dataset}", "{suite}", "{shard}"),
    log:
        L.logs("invariant", "{track}", "{dataset}", "{suite}", "{shard}"),
    benchmark:
        L.benchmark("check_invariant", "{track}", "{dataset}", "{suite}", "{shard}")
    conda:
        CORE_ENV
    # Jobs (suites x shards) fill the cores; with fewer jobs than cores, `--set-threads
    # check_invariant=N` parses large batches (thousands of sentences) in N processes.
    threads: 1
    params:
        pipeline=config["parser"]["pipeline"],
        invariant=config["invariant"],
        cache_dir=config["cache_dir"],
    script:
        "../scripts/check_invariant.py"


rule summarise_invariant:
    """Generated, valid and discarded mutants by reason, per suite, for one track and dataset."""
    input:
        stats=J.validity_stats,
    output:
        summary=L.validity_summary("{track}", "{dataset}"),
    log:
        L.logs("invariant", "{track}", "{dataset}", "summary"),
    conda:
        CORE_ENV
    threads: 1
    script:
        "../scripts/summarise_invariant.py"


rule invariant:
    """Target: validity of every suite, and the summary of every (track, dataset)."""
    input:
        paths(SHARDS, "validity"),
        paths(VALIDITY_SUMMARIES),
