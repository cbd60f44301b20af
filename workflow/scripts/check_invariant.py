"""Placeholder: implemented by its stage issue."""

raise NotImplementedError("check_invariant")
