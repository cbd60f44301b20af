"""Placeholder: implemented by its stage issue."""

raise NotImplementedError("demo_dataset")
