"""A vLLM server (``vllm serve MODEL``): the OpenAI API on a local port, no key, no price. A server started with
``--api-key`` is reached as provider ``openai`` with ``--base-url`` and ``OPENAI_API_KEY``."""

from __future__ import annotations

from judgebias_core.providers import Capabilities, Provider
from judgebias_core.providers.openai import openai_api_client

PROVIDER = Provider(
    name="vllm", label="vLLM server (OpenAI-compatible)", default_models=("Qwen/Qwen2.5-7B-Instruct",),
    key_variable=None, capabilities=Capabilities(structured_output=True, logprobs=True, base_url=True),
    client=openai_api_client, paid=False, default_base_url="http://localhost:8000/v1", local=True,
    reply_constraint="choice",
)
