# HInter workflow: regenerates every result of the HInter study (RQ1–RQ6) from raw data.
#   snakemake --cores 32 --use-conda            the paper (config/config.yaml)
#   snakemake --cores 8 rq3                     one research question
#   snakemake --configfile config/demo.yaml     the offline demo (make demo)
import os
import sys

# The paper's config is the default; a --configfile replaces it instead of being merged into it.
if not workflow.overwrite_configfiles:
    # Read by hinter first: a YAML error then names the file and line (Snakemake's does not).
    sys.path.insert(0, os.path.join(workflow.basedir, "src"))
    from hinter.config import load_yaml
    from hinter.errors import ConfigError

    try:
        load_yaml(os.path.join(workflow.basedir, "config", "config.yaml"))
    except ConfigError as exc:
        sys.exit(f"hinter: {exc}")

    configfile: os.path.join(workflow.basedir, "config", "config.yaml")


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/demo.smk"
include: "workflow/rules/dictionary.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/mutate.smk"
include: "workflow/rules/invariant.smk"
include: "workflow/rules/models.smk"
include: "workflow/rules/oracle.smk"
include: "workflow/rules/grammar.smk"
include: "workflow/rules/rq.smk"
include: "workflow/rules/labe.smk"
include: "workflow/rules/reconciliation.smk"


rule all:
    default_target: True
    input:
        rules.dictionary.input,
        rules.mutation.input,
        rules.invariant.input,
        rules.model_performance.output,
        rules.llm_performance.output,
        rules.grammar.input,
        rules.rq1.input,
        rules.rq2.input,
        rules.rq3.input,
        rules.rq4.input,
        rules.rq5.input,
        rules.rq6.input,
        rules.paper_comparison.output,
        rules.labe.input,
