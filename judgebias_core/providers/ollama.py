"""An Ollama server: its OpenAI-compatible API on the local port 11434, no key, no price."""

from __future__ import annotations

from judgebias_core.providers import Capabilities, Provider
from judgebias_core.providers.openai import openai_api_client

# Ollama's OpenAI API takes a JSON schema in response_format; log-probabilities are not offered (not every
# Ollama version returns them).
PROVIDER = Provider(
    name="ollama", label="Ollama server (OpenAI-compatible)", default_models=("llama3.1:8b",), key_variable=None,
    capabilities=Capabilities(structured_output=True, base_url=True), client=openai_api_client, paid=False,
    default_base_url="http://localhost:11434/v1", local=True, reply_constraint="json",
)
