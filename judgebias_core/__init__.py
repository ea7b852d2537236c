"""judgebias: how far can an LLM judge be trusted? Position-bias measurement for LLM judges."""

__version__ = "0.1.0"
