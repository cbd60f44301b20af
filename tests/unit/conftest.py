"""Fixtures shared by the LLM unit tests (the engine, sampling)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from llm_models import tiny_llama_dir, write_demo_dataset


@pytest.fixture
def one_torch_thread():
    """Torch on one thread, as a workflow job runs it (and reproducibly on any machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """A randomly initialised 2-layer Llama with SmolLM2's tokenizer and chat template."""
    return tiny_llama_dir(tmp_path_factory)


@pytest.fixture(scope="module")
def imdb(tmp_path_factory) -> Path:
    """A demo IMDB dataset folder of this module's own."""
    return write_demo_dataset(tmp_path_factory.mktemp("imdb"), "imdb")
