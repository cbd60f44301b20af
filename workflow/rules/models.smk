# Models under test: fine-tuning of encoders, and one predict stage for every model (encoders and
# prompted LLMs: hinter.models.predictor), batched, deduplicated and cached.

from hinter.models.performance import llm_performance_runs, performance_runs


rule train_encoder:
    """Fine-tune one encoder on one dataset (LexGLUE recipe); keep the best epoch."""
    input:
        splits=J.splits,
        meta=J.meta,
    output:
        model=directory(L.model_weights("{model}", "{dataset}")),
        metrics=L.model_metrics("{model}", "{dataset}"),
    log:
        L.logs("models", "train_{model}_{dataset}"),
    benchmark:
        L.benchmark("train_encoder", "{model}", "{dataset}")
    conda:
        MODELS_ENV
    threads: 4
    resources:
        gpu=1,
    params:
        spec=J.encoder_spec,
        training=config["models"]["training"],
        seed=config["seed"],
    script:
        "../scripts/train_encoder.py"


rule model_performance:
    """Our fine-tuned encoders' scores beside LexGLUE's reported ones (001 Table 5)."""
    input:
        metrics=[
            L.model_metrics(r.model, r.dataset)
            for r in plan.model_runs(config)
            if r.kind == "encoder"
        ],
        # the tested originals' predictions: the most frequent one's share (a constant model)
        predictions=[
            p for run in performance_runs(config, L, "encoder") for p in run["predictions"]
        ],
        reported=RESOURCES / "lexglue" / "reported_scores.csv",
    output:
        csv=L.model_performance("csv"),
        md=L.model_performance("md"),
        html=report(
            L.model_performance("html"),
            caption="../report/models/performance.rst",
            category="Models",
            subcategory="Scores",
            labels={"output": "Fine-tuned encoders: scores and constant predictions"},
        ),
    log:
        L.logs("models", "performance"),
    conda:
        CORE_ENV
    threads: 1
    params:
        checkpoints={
            name: spec.get("checkpoint") for name, spec in config["models"]["encoders"].items()
        },
        runs=performance_runs(config, L, "encoder"),
    script:
        "../scripts/model_performance.py"


rule llm_performance:
    """Our LLMs' accuracy and F1 on the original documents beside the paper's (001 Table 5),
    from the predictions the predict stage already wrote."""
    input:
        predictions=[p for run in llm_performance_runs(config, L) for p in run["predictions"]],
        tested=[p for run in llm_performance_runs(config, L) for p in run["tested"]],
        metas=[run["meta"] for run in llm_performance_runs(config, L)],
        reported=RESOURCES / "lexglue" / "reported_scores.csv",
    output:
        csv=L.llm_performance("csv"),
        md=L.llm_performance("md"),
        html=report(
            L.llm_performance("html"),
            caption="../report/models/llm_performance.rst",
            category="Models",
            subcategory="Scores",
            labels={"output": "Prompted LLMs: scores and constant predictions"},
        ),
    log:
        L.logs("models", "llm_performance"),
    conda:
        CORE_ENV
    threads: 1
    params:
        runs=llm_performance_runs(config, L),
        checkpoints={name: spec["model"] for name, spec in config["models"]["llms"].items()},
    script:
        "../scripts/llm_performance.py"


rule predict:
    """Predictions of one model (variant) for the originals and mutants of one shard."""
    input:
        unpack(J.predict),
        meta=J.meta,
    output:
        L.predictions("{model}", "{dataset}", "{shard}", "{variant}"),
    log:
        L.logs("predict", "{model}", "{variant}", "{dataset}", "{shard}"),
    benchmark:
        L.benchmark("predict", "{model}", "{variant}", "{dataset}", "{shard}")
    conda:
        MODELS_ENV
    threads: 4
    resources:
        # encoders and open-weights LLMs want a GPU; API callers can be capped (e.g. api=4)
        gpu=J.gpu,
        api=J.api,
    params:
        kind=J.model_kind,
        spec=J.variant_spec,
        # RQ6.1's sampled repeats, answered by the default run from the same prefill
        companions=J.shared_decodings,
        track=J.track_settings,
        inference=config["models"]["inference"],
        keep_discarded=J.keeps_discarded,
        cache_dir=config["cache_dir"],
        # user datasets: few-shot rows of their own prompt (or the first distinct labels)
        from_hub=J.from_hub,
        prompt=user_prompt,
    script:
        "../scripts/predict.py"
