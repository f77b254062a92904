"""A GGUF model in process through llama-cpp-python (``LlamaCppBackend``).

Modules by job: ``backend`` (the backend), ``ledger`` (token ids reused across
calls so llama.cpp's prefix cache holds), ``generation`` (the sampling loop),
``grammar_gate`` (grammar-constrained sampling), ``loading`` and ``options``
(how the model is loaded). The llama_cpp library itself is imported only when a
model is loaded, so importing this package stays cheap.
"""

from .backend import LlamaCppBackend

__all__ = ["LlamaCppBackend"]
