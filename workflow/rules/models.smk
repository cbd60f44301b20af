# Models under test: fine-tuning of encoders and the batched, cached inference engine (issue 6).


rule train_encoder:
    """Fine-tune one encoder on one dataset (LexGLUE recipe); keep the best epoch."""
    input:
        splits=lambda wc: [L.documents(wc.dataset, s) for s in SPLITS],
        meta=lambda wc: L.meta(wc.dataset),
    output:
        model=directory(L.model_weights("{model}", "{dataset}")),
        metrics=L.model_metrics("{model}", "{dataset}"),
    log:
        L.logs("models", "train_{model}_{dataset}"),
    conda:
        MODELS_ENV
    threads: 4
    resources:
        gpu=1,
    params:
        spec=lambda wc: config["models"]["encoders"][wc.model],
        training=config["models"]["training"],
        seed=config["seed"],
    script:
        "../scripts/train_encoder.py"


rule model_performance:
    """Our fine-tuned encoders' scores beside LexGLUE's reported ones (001 Table 5)."""
    input:
        metrics=[L.model_metrics(r.model, r.dataset) for r in model_runs()],
        reported=RESOURCES / "lexglue" / "reported_scores.csv",
    output:
        csv=L.model_performance("csv"),
        md=L.model_performance("md"),
    log:
        L.logs("models", "performance"),
    conda:
        CORE_ENV
    threads: 1
    params:
        checkpoints={
            name: spec.get("checkpoint") for name, spec in config["models"]["encoders"].items()
        },
    script:
        "../scripts/model_performance.py"


rule predict:
    """Predictions for the originals and mutants of one shard (deduplicated, cached)."""
    input:
        unpack(predict_inputs),
        meta=lambda wc: L.meta(wc.dataset),
    output:
        L.predictions("{model}", "{dataset}", "{shard}", "{variant}"),
    log:
        L.logs("predict", "{model}", "{variant}", "{dataset}", "{shard}"),
    conda:
        MODELS_ENV
    threads: 4
    resources:
        gpu=1,
    params:
        inference=config["models"]["inference"],
        keep_discarded=config["invariant"]["keep_discarded"],
        cache_dir=config["cache_dir"],
    script:
        "../scripts/predict.py"
