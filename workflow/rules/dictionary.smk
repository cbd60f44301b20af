# Bias dictionary: SBIC term extraction, curated pairs, custom attributes (issue 3).

SBIC_DIR = (
    "resources/sbic" if config["dictionary"]["sbic"]["source"] == "download" else f"{RUN}/sbic"
)


rule compile_pairs:
    """Directed word pairs of every configured attribute, with stable content-derived ids."""
    input:
        dictionary=str(RESOURCES / "dictionary"),
    output:
        pairs=f"{RUN}/dictionary/pairs.parquet",
    log:
        f"{LOGS}/dictionary/compile_pairs.log",
    conda:
        CORE_ENV
    threads: 1
    params:
        attributes=config["attributes"],
        pairing=config["dictionary"]["pairing"],
        custom=config["dictionary"]["custom"],
    script:
        "../scripts/compile_pairs.py"


rule demo_sbic:
    """A synthetic SBIC-format aggregated CSV (one per SBIC split)."""
    output:
        f"{RUN}/sbic/SBIC.v2.agg.{{sbic_split}}.csv",
    log:
        f"{LOGS}/demo/sbic_{{sbic_split}}.log",
    wildcard_constraints:
        sbic_split="trn|dev|tst",
    conda:
        CORE_ENV
    threads: 1
    params:
        posts=config["data"]["demo"]["sbic_posts"],
        seed=config["data"]["demo"]["seed"],
    script:
        "../scripts/demo_sbic.py"
