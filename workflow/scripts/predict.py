"""Placeholder: implemented by its stage issue."""

raise NotImplementedError("predict")
