"""HInter: atomic, intersectional and hidden intersectional bias testing of NLP models."""

__version__ = "0.1.0"
