# The offline demo substrate (docs/design.md §6): synthetic corpora in the schemas of the real inputs.
# (The synthetic SBIC file is made in dictionary.smk, next to the extraction that reads it; the
# invariant parses with spaCy's real en_core_web_sm, installed offline by `make env`.)

# The grammar's data: a change reruns the corpora.
DEMO_GRAMMAR = [
    str(RESOURCES / "demo" / name) for name in ("lexicon.tsv", "topics.tsv", "words.tsv")
]


if DEMO:

    rule demo_dataset:
        """A synthetic dataset in the exact schema of the hub loader's output."""
        input:
            grammar=DEMO_GRAMMAR,
            planted_bias=str(RESOURCES / "demo" / "planted_bias.tsv"),
            labels=str(RESOURCES / "labels" / "{dataset}.tsv"),
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

    ruleorder: user_dataset > demo_dataset
