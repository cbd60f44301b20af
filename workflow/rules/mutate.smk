# Mutation engine: atomic and intersectional mutants as edits, per suite and shard (docs/design.md §2, §4).


rule track_windows:
    """What the LLMs of a track read of each document of a shard (context minus prompt and answer
    budget, with their own tokenizers), and their few-shot examples: once per shard."""
    input:
        docs=lambda wc: L.tested(wc.dataset, wc.shard),
        train=lambda wc: L.documents(wc.dataset, "train"),
        meta=lambda wc: L.meta(wc.dataset),
    output:
        L.windows("{track}", "{dataset}", "{shard}"),
    log:
        L.logs("mutate", "{track}", "{dataset}", "windows_{shard}"),
    conda:
        MODELS_ENV
    threads: 1
    params:
        llms=lambda wc: plan.track_llms(config, wc.track, wc.dataset),
        cache_dir=config["cache_dir"],
        # user datasets: few-shot rows of their own prompt (or the first distinct labels)
        from_hub=lambda wc: not DEMO and wc.dataset not in config["user_datasets"],
        prompt=lambda wc: user_prompt(wc.dataset),
    script:
        "../scripts/track_windows.py"


rule mutate:
    """Mutants of one suite for the documents of one shard, within the track's window."""
    input:
        unpack(mutate_inputs),
    output:
        mutants=L.mutants("{track}", "{dataset}", "{suite}", "{shard}"),
        stats=L.mutant_stats("{track}", "{dataset}", "{suite}", "{shard}"),
    log:
        L.logs("mutate", "{track}", "{dataset}", "{suite}", "{shard}"),
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
            L.mutant_stats(wc.track, wc.dataset, suite, shard)
            for suite in suite_names(wc.dataset, wc.track)
            for shard in shards(wc.dataset)
        ],
    output:
        summary=L.mutation_summary("{track}", "{dataset}"),
    log:
        L.logs("mutate", "{track}", "{dataset}", "summary"),
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
