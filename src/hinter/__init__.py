"""HInter: atomic, intersectional and hidden intersectional bias testing of text classifiers and LLMs."""

__version__ = "0.1.0"
