# Download target, for clusters whose compute nodes have no internet: run it on a login node.
#   snakemake download --config 'data={mirror: /shared/hinter-mirror}'
# It fills the mirror with the run's datasets in the hub repos' own layout, fetches and verifies
# the SBIC archive (rule download_sbic) and installs the parser when missing; the compute nodes
# then run with data.source: mirror (README, "Cluster without internet").

DOWNLOAD_CONFIG = {key: config[key] for key in ("datasets", "data", "dictionary", "parser")}


rule download:
    """Fetch what the run needs from the internet; report it in download.json."""
    input:
        sbic=rules.download_sbic.output if SBIC["source"] == "download" else [],
    output:
        f"{L.root}/download.json",
    log:
        L.logs("download", "download"),
    localrule: True
    conda:
        CORE_ENV
    threads: 1
    resources:
        downloads=1,
    params:
        config=DOWNLOAD_CONFIG,
        sbic_dir=SBIC_DOWNLOAD,
        sbic_checksums=str(RESOURCES / "sbic" / "checksums.sha256"),
        parser_lock=str(Path(workflow.basedir) / "requirements" / "nodeps.lock"),
    script:
        "../scripts/download_mirror.py"
