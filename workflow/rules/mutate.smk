# Mutation engine: atomic and intersectional mutants as edits, per suite and shard (issue 4).


rule mutate:
    """Mutants of one suite for the documents of one shard, within the track's window."""
    input:
        docs=lambda wc: tested(wc.dataset, wc.shard),
        pairs=rules.compile_pairs.output.pairs,
    output:
        mutants=mutants("{track}", "{dataset}", "{suite}", "{shard}"),
        stats=f"{RUN}/mutants/{{track}}/{{dataset}}/{{suite}}/{{shard}}.json",
    log:
        f"{LOGS}/mutate/{{track}}/{{dataset}}/{{suite}}/{{shard}}.log",
    conda:
        CORE_ENV
    threads: 1
    params:
        suite=lambda wc: suite_spec(wc.dataset, wc.track, wc.suite),
        track=lambda wc: config["mutation"]["tracks"][wc.track],
        mutation=config["mutation"],
        seed=config["seed"],
    script:
        "../scripts/mutate.py"
