# Data layer: the datasets under test, normalised to documents tables, then split into shards.

# Datasets declared in the config (files or a hub id, hinter.userdata) replace the loader of a
# paper dataset of the same name.
USER_DATASETS = [ds for ds in DATASETS if ds in config["user_datasets"]]


rule user_dataset:
    """A dataset of the user's: files (CSV/TSV/Parquet/JSONL) or a hub id, checked row by row."""
    input:
        user_dataset_files,
    output:
        splits=expand(L.documents("{{dataset}}", "{split}"), split=SPLITS),
        meta=L.meta("{dataset}"),
    log:
        L.logs("data", "user_{dataset}"),
    wildcard_constraints:
        dataset="|".join(USER_DATASETS) or "^$",
    conda:
        CORE_ENV
    threads: 1
    params:
        spec=J.user_spec,
        base_dir=workflow.basedir,
    script:
        "../scripts/user_dataset.py"


if not DEMO:

    rule download_dataset:
        """One dataset from the HuggingFace hub (or data.mirror), normalised, its facts checked."""
        output:
            splits=expand(L.documents("{{dataset}}", "{split}"), split=SPLITS),
            meta=L.meta("{dataset}"),
        log:
            L.logs("data", "download_{dataset}"),
        conda:
            CORE_ENV
        threads: 2
        resources:
            downloads=1,
        params:
            source=J.hub_source,
            labels=str(RESOURCES / "labels"),
            mirror=config["data"]["mirror"] if config["data"]["source"] == "mirror" else None,
        script:
            "../scripts/download_dataset.py"

    ruleorder: user_dataset > download_dataset


rule shard_documents:
    """The tested documents of one shard (in `data.order`; first N of that order when capped)."""
    input:
        splits=J.test_splits,
        meta=L.meta("{dataset}"),
    output:
        L.tested("{dataset}", "{shard}"),
    log:
        L.logs("data", "shard_{dataset}_{shard}"),
    conda:
        CORE_ENV
    threads: 1
    params:
        splits=config["data"]["test_splits"],
        n_shards=J.n_shards,
        max_documents=config["data"]["max_documents"],
        order=J.document_order,
        seed=config["seed"],
    script:
        "../scripts/shard_documents.py"
