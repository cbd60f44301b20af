# The offline demo substrate (DESIGN §6): synthetic corpora, a treebank of the same grammar and a
# small spaCy pipeline trained on it. Same schemas as the real inputs. (The synthetic SBIC file is
# made in dictionary.smk, next to the extraction that reads it.)


if DEMO:

    rule demo_dataset:
        """A synthetic dataset in the exact schema of the hub loader's output."""
        output:
            splits=expand(documents("{{dataset}}", "{split}"), split=SPLITS),
            meta=dataset_meta("{dataset}"),
        log:
            f"{LOGS}/demo/dataset_{{dataset}}.log",
        conda:
            CORE_ENV
        threads: 1
        params:
            demo=config["data"]["demo"],
            labels=str(RESOURCES / "labels"),
        script:
            "../scripts/demo_dataset.py"


rule demo_treebank:
    """Sentences of the demo grammar annotated with PTB tags, heads and dependency labels."""
    output:
        train=f"{RUN}/parser/treebank/train.spacy",
        dev=f"{RUN}/parser/treebank/dev.spacy",
    log:
        f"{LOGS}/demo/treebank.log",
    conda:
        CORE_ENV
    threads: 1
    params:
        sentences=config["data"]["demo"]["treebank_sentences"],
        seed=config["data"]["demo"]["seed"],
    script:
        "../scripts/demo_treebank.py"


rule train_demo_parser:
    """A small spaCy tagger + parser (rule-based sentencizer) trained on the demo treebank."""
    input:
        train=rules.demo_treebank.output.train,
        dev=rules.demo_treebank.output.dev,
    output:
        pipeline=directory(f"{RUN}/parser/pipeline"),
        metrics=f"{RUN}/parser/metrics.json",
    log:
        f"{LOGS}/demo/train_parser.log",
    conda:
        CORE_ENV
    threads: 2
    params:
        train=config["parser"]["train"],
        seed=config["seed"],
    script:
        "../scripts/train_demo_parser.py"
