"""A llama.cpp server (``llama-server -m MODEL.gguf``): the OpenAI API on a local port, no key, no price. Replies
are held to the template's answer format by a GBNF grammar sent with each request (``--constrain-reply``)."""

from __future__ import annotations

from judgebias_core.providers import Capabilities, Provider
from judgebias_core.providers.openai import openai_api_client

# llama-server answers whatever model name it is sent with the one model it loaded; its chat completions take a
# JSON schema (response_format), a GBNF grammar (``grammar``) and top log-probabilities.
PROVIDER = Provider(
    name="llamacpp", label="llama.cpp server (llama-server, OpenAI-compatible)", default_models=("local-model",),
    key_variable=None, capabilities=Capabilities(structured_output=True, logprobs=True, base_url=True),
    client=openai_api_client, paid=False, default_base_url="http://localhost:8080/v1", local=True,
    reply_constraint="grammar",
)
