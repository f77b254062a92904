"""Function calling for models without it: the shim and the OpenAI-compatible server."""
