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
        n_shards=lambda wc: len(shards(wc.dataset)),
        mutation=config["mutation"],
        seed=config["seed"],
    script:
        "../scripts/mutate.py"


rule mutation_summary:
    """Generated, written, overlapping and duplicate counts per suite of one (track, dataset)."""
    input:
        stats=lambda wc: [
            f"{RUN}/mutants/{wc.track}/{wc.dataset}/{suite}/{shard}.json"
            for suite in suite_names(wc.dataset, wc.track)
            for shard in shards(wc.dataset)
        ],
    output:
        summary=mutation_summary("{track}", "{dataset}"),
    log:
        f"{LOGS}/mutate/{{track}}/{{dataset}}/summary.log",
    conda:
        CORE_ENV
    threads: 1
    script:
        "../scripts/mutation_summary.py"


rule mutation:
    """Every suite of every (track, dataset), with the per-(track, dataset) summaries."""
    input:
        all_mutants(),
        all_mutation_summaries(),
