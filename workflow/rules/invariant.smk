# Dependency invariant: validity of every mutant against its original (docs/design.md §2).


rule check_invariant:
    """Validity of the mutants of one suite and shard (dependency invariant, paper Alg. 3)."""
    input:
        mutants=L.mutants("{track}", "{dataset}", "{suite}", "{shard}"),
        docs=lambda wc: L.tested(wc.dataset, wc.shard),
        parser=parser_input,
        # An intersectional suite waits for its attributes' atomic suites: the parse cache then
        # holds its parents' sentences, and its parents' verdicts must agree with theirs.
        atomic=lambda wc: [
            L.validity(wc.track, wc.dataset, plan.suite_name((a,)), wc.shard)
            for a in plan.parse_suite(wc.suite)
            if wc.suite.startswith("inter-")
        ],
    output:
        validity=L.validity("{track}", "{dataset}", "{suite}", "{shard}"),
        stats=L.validity_stats("{track}", "{dataset}", "{suite}", "{shard}"),
    log:
        L.logs("invariant", "{track}", "{dataset}", "{suite}", "{shard}"),
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
        stats=lambda wc: [
            L.validity_stats(wc.track, wc.dataset, suite, shard)
            for suite in suite_names(wc.dataset, wc.track)
            for shard in shards(wc.dataset)
        ],
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
        all_validity(),
        all_validity_summaries(),
