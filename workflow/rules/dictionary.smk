# Bias dictionary: SBIC acquisition and term extraction, curated pairs, custom attributes, coverage.
#   snakemake dictionary     pairs.parquet, sbic_terms.tsv and the coverage report of the run
from hinter.dictionary.custom import dictionary_files

SBIC = config["dictionary"]["sbic"]
SBIC_DOWNLOAD = str(RESOURCES / "sbic")
SBIC_DIR = {
    "download": SBIC_DOWNLOAD,
    "demo": L.sbic_dir(),
    # CSVs extracted beforehand (e.g. the real dev split in ../shared/real/sbic: make sample)
    "folder": str(Path(workflow.basedir) / (SBIC.get("folder") or ".")),
}[SBIC["source"]]


rule download_sbic:
    """SBIC.v2.tgz from the authors, verified against resources/sbic/checksums.sha256, extracted."""
    output:
        expand(
            f"{SBIC_DOWNLOAD}/SBIC.v2.{{agg}}{{split}}.csv",
            agg=["", "agg."],
            split=["trn", "dev", "tst"],
        ),
    log:
        L.logs("dictionary", "download_sbic"),
    conda:
        CORE_ENV
    threads: 1
    resources:
        downloads=1,
    params:
        url=SBIC["url"],
        checksums=str(RESOURCES / "sbic" / "checksums.sha256"),
    script:
        "../scripts/download_sbic.py"


rule demo_sbic:
    """A synthetic SBIC split in the real formats (per-annotation and aggregated CSVs)."""
    output:
        annotations=L.sbic("SBIC.v2.{sbic_split}.csv"),
        aggregated=L.sbic("SBIC.v2.agg.{sbic_split}.csv"),
    log:
        L.logs("demo", "sbic_{sbic_split}"),
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


rule extract_sbic_terms:
    """Group terms per SBIC category, aligned per annotation, with their posts and annotations."""
    input:
        annotations=expand(f"{SBIC_DIR}/SBIC.v2.{{split}}.csv", split=SBIC["splits"]),
        aggregated=expand(
            f"{SBIC_DIR}/SBIC.v2.agg.{{split}}.csv",
            split=SBIC["splits"] if SBIC["aggregated"] else [],
        ),
    output:
        terms=L.dictionary("sbic_terms.tsv"),
        mentions=L.dictionary("sbic_mentions.parquet"),
        stats=L.dictionary("sbic_terms.json"),
    log:
        L.logs("dictionary", "extract_sbic_terms"),
    conda:
        CORE_ENV
    threads: 1
    params:
        aggregated=SBIC["aggregated"],
    script:
        "../scripts/extract_sbic_terms.py"


rule compile_pairs:
    """Directed word pairs of every configured attribute, with stable content-derived ids."""
    input:
        ambiguous=str(RESOURCES / "dictionary" / "ambiguous.tsv"),
        lists=dictionary_files(
            config["attributes"],
            RESOURCES / "dictionary",
            config["dictionary"]["custom"],
            workflow.basedir,
        ),
    output:
        pairs=L.dictionary("pairs.parquet"),
        review=L.dictionary("review.tsv"),
    log:
        L.logs("dictionary", "compile_pairs"),
    conda:
        CORE_ENV
    threads: 1
    params:
        attributes=config["attributes"],
        pairing=config["dictionary"]["pairing"],
        custom=config["dictionary"]["custom"],
        drop_ambiguous=config["dictionary"]["drop_ambiguous"],
        # resources/dictionary/ and the repository root (custom files are relative to it)
        resources=lambda wildcards, input: os.path.dirname(input.ambiguous),
        base_dir=lambda wildcards, input: str(Path(input.ambiguous).parents[2]),
    script:
        "../scripts/compile_pairs.py"


rule dictionary_coverage:
    """Each curated term's SBIC support, curation candidates, counts per attribute (printed)."""
    input:
        pairs=rules.compile_pairs.output.pairs,
        review=rules.compile_pairs.output.review,
        mentions=rules.extract_sbic_terms.output.mentions,
        stats=rules.extract_sbic_terms.output.stats,
        ambiguous=rules.compile_pairs.input.ambiguous,
        lists=rules.compile_pairs.input.lists,
    output:
        markdown=L.dictionary("coverage.md"),
        terms=L.dictionary("coverage_terms.tsv"),
        candidates=L.dictionary("coverage_candidates.tsv"),
        summary=L.dictionary("coverage_summary.tsv"),
    log:
        L.logs("dictionary", "coverage"),
    conda:
        CORE_ENV
    threads: 1
    params:
        attributes=config["attributes"],
        pairing=config["dictionary"]["pairing"],
        custom=config["dictionary"]["custom"],
        resources=lambda wildcards, input: os.path.dirname(input.ambiguous),
        base_dir=lambda wildcards, input: str(Path(input.ambiguous).parents[2]),
        categories=SBIC["categories"],
        min_support=SBIC["min_support"],
        sbic=SBIC,
    script:
        "../scripts/dictionary_coverage.py"


rule dictionary:
    """Target: the compiled pairs, the SBIC terms and the coverage report of this run."""
    input:
        rules.compile_pairs.output,
        rules.extract_sbic_terms.output,
        rules.dictionary_coverage.output,
