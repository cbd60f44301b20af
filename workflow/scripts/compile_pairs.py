"""Placeholder: implemented by its stage issue."""

raise NotImplementedError("compile_pairs")
