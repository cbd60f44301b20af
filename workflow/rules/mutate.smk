# Mutation engine: atomic and intersectional mutants as edits, per suite and shard (docs/design.md §2, §4).


rule track_windows:
    """What the LLMs of a track read of each document of a shard (context minus prompt and answer
    budget, with their own tokenizers), and their few-shot examples: once per shard."""
    input:
        docs=J.shard_docs,
        train=J.train,
        meta=J.meta,
    output:
        L.windows("{track}", "{dataset}", "{shard}"),
    log:
        L.logs("mutate", "{track}", "{dataset}", "windows_{shard}"),
    conda:
        MODELS_ENV
    threads: 1
    params:
        llms=J.track_llms,
        cache_dir=config["cache_dir"],
        # user datasets: few-shot rows of their own prompt (or the first distinct labels)
        from_hub=J.from_hub,
        prompt=user_prompt,
    script:
        "../scripts/track_windows.py"


rule mutate:
    """Mutants of one suite for the documents of one shard, within the track's window."""
    input:
        unpack(J.mutate),
    output:
        mutants=L.mutants("{track}", "{dataset}", "{suite}", "{shard}"),
        stats=L.mutant_stats("{track}", "{dataset}", "{suite}", "{shard}"),
    log:
        L.logs("mutate", "{track}", "{dataset}", "{suite}", "{shard}"),
    benchmark:
        L.benchmark("mutate", "{track}", "{dataset}", "{suite}", "{shard}")
    conda:
        CORE_ENV
    threads: 1
    params:
        suite=J.suite_spec,
        track=J.track_settings,
        n_shards=J.n_shards,
        mutation=config["mutation"],
        seed=config["seed"],
    script:
        "../scripts/mutate.py"


rule mutation_summary:
    """Generated, written, overlapping and duplicate counts per suite of one (track, dataset)."""
    input:
        stats=J.mutant_stats,
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
        paths(SHARDS, "mutants"),
        paths(targets.mutation_summaries(config, L)),
