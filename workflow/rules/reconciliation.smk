# The reconciliation (issue 31, docs/reconciliation.md): Alg. 3's pass rates per order on real
# corpora, faithful and with each of the original artifact's inputs; config/reconciliation.yaml.

RECONCILIATION = config.get("reconciliation") or {}
RECON_CORPORA = list(RECONCILIATION.get("corpora", {}))


rule reconcile_corpus:
    """Pass rates of every variant of the invariant on one real corpus (hinter.invariant.reconcile)."""
    input:
        corpus=lambda wildcards: RECONCILIATION["corpora"][wildcards.corpus]["file"],
        dictionary=RESOURCES / "dictionary",
        parser=parser_input,
    output:
        rows=L.reconciliation("{corpus}.json"),
    log:
        L.logs("reconciliation", "{corpus}"),
    benchmark:
        L.benchmark("reconcile_corpus", "{corpus}")
    conda:
        CORE_ENV
    threads: 1
    params:
        spec=lambda wildcards: RECONCILIATION["corpora"][wildcards.corpus],
        settings={**RECONCILIATION, "attributes": config["attributes"]},
        pipeline=config["parser"]["pipeline"],
        cache_dir=config["cache_dir"],
    script:
        "../scripts/reconcile_corpus.py"


rule reconciliation_table:
    """The ablation table: pass rate per order and variant, per corpus, beside 002 Table 5."""
    input:
        rows=expand(L.reconciliation("{corpus}.json"), corpus=RECON_CORPORA),
    output:
        csv=L.reconciliation("table.csv"),
        md=L.reconciliation("table.md"),
    log:
        L.logs("reconciliation", "table"),
    conda:
        CORE_ENV
    threads: 1
    script:
        "../scripts/reconciliation_table.py"


rule reconciliation:
    """Target: the reconciliation's table (config/reconciliation.yaml)."""
    input:
        L.reconciliation("table.md") if RECON_CORPORA else [],
