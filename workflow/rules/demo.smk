# The offline demo substrate (DESIGN §6): synthetic corpora, a treebank of the same grammar and a
# small spaCy pipeline trained on it. Same schemas as the real inputs. (The synthetic SBIC file is
# made in dictionary.smk, next to the extraction that reads it.)

# The grammar's data: a change reruns the corpora, the treebank and the parser.
DEMO_GRAMMAR = [str(RESOURCES / "demo" / name) for name in ("lexicon.tsv", "topics.tsv")]


if DEMO:

    rule demo_dataset:
        """A synthetic dataset in the exact schema of the hub loader's output."""
        input:
            grammar=DEMO_GRAMMAR,
            planted_bias=str(RESOURCES / "demo" / "planted_bias.tsv"),
            labels=str(RESOURCES / "labels" / "{dataset}.txt"),
        output:
            splits=expand(L.documents("{{dataset}}", "{split}"), split=SPLITS),
            meta=L.meta("{dataset}"),
        log:
            L.logs("demo", "dataset_{dataset}"),
        conda:
            CORE_ENV
        threads: 1
        params:
            demo={
                key: config["data"]["demo"][key]
                for key in ("seed", "documents", "sentences", "planted_bias")
            },
            resources=lambda wc, input: str(Path(input.grammar[0]).parents[1]),
        script:
            "../scripts/demo_dataset.py"


rule demo_treebank:
    """Sentences of the demo grammar annotated with PTB tags, heads and dependency labels."""
    input:
        grammar=DEMO_GRAMMAR,
    output:
        train=L.parser("treebank/train.spacy"),
        dev=L.parser("treebank/dev.spacy"),
    log:
        L.logs("demo", "treebank"),
    conda:
        CORE_ENV
    threads: 1
    params:
        sentences=config["data"]["demo"]["treebank_sentences"],
        seed=config["data"]["demo"]["seed"],
        resources=lambda wc, input: str(Path(input.grammar[0]).parents[1]),
    script:
        "../scripts/demo_treebank.py"


rule train_demo_parser:
    """A small spaCy tagger + parser (rule-based sentencizer) trained on the demo treebank."""
    input:
        train=rules.demo_treebank.output.train,
        dev=rules.demo_treebank.output.dev,
        grammar=DEMO_GRAMMAR,
    output:
        pipeline=directory(L.parser("pipeline")),
        metrics=L.parser("metrics.json"),
    log:
        L.logs("demo", "train_parser"),
    conda:
        CORE_ENV
    threads: 2
    params:
        train=config["parser"]["train"],
        seed=config["seed"],
        demo_seed=config["data"]["demo"]["seed"],
        substituted=config["data"]["demo"]["substituted_sentences"],
        resources=lambda wc, input: str(Path(input.grammar[0]).parents[1]),
    script:
        "../scripts/train_demo_parser.py"
