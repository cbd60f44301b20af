# Grammatical validity (RQ2, RQ3.3): a balanced sample of originals, valid and discarded
# mutants per (model, dataset), labelled by the model's outcomes and scored by a grammar
# checker (hinter.grammaticality).
from hinter.grammaticality.runs import grammar_runs

try:
    GRAMMAR_RUNS = grammar_runs(config)
except ConfigError as exc:
    sys.exit(f"hinter: {exc}")


def grammar_inputs(wc):
    """Outcomes of every suite of the model, the suites' mutants and the tested documents."""
    track = model_track(wc.model)
    suites = suite_names(wc.dataset, track, wc.model)
    return {
        "outcomes": [L.outcomes(wc.model, wc.dataset, s, wc.variant) for s in suites],
        "mutants": [
            L.mutants(track, wc.dataset, s, sh) for s in suites for sh in shards(wc.dataset)
        ],
        "docs": [L.tested(wc.dataset, sh) for sh in shards(wc.dataset)],
    }


def all_grammar_scores():
    return [L.grammar_scores(r.model, r.dataset) for r in GRAMMAR_RUNS]


rule grammar_scores:
    """Grammar scores of the balanced sample of one (model, dataset)."""
    input:
        unpack(grammar_inputs),
    output:
        scores=L.grammar_scores("{model}", "{dataset}", "{variant}"),
        summary=L.grammar_summary("{model}", "{dataset}", "{variant}"),
    log:
        L.logs("grammar", "{model}", "{variant}", "{dataset}"),
    conda:
        CORE_ENV
    threads: 1
    params:
        suites=lambda wc: suite_names(wc.dataset, model_track(wc.model), wc.model),
        grammar=config["grammar"],
        cache_dir=config["cache_dir"],
    script:
        "../scripts/grammar_scores.py"


rule grammar:
    """Target: the grammar scores of every sampled (model, dataset)."""
    input:
        all_grammar_scores(),
