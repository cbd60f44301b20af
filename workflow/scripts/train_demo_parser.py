"""Placeholder: implemented by its stage issue."""

raise NotImplementedError("train_demo_parser")
