"""Known OpenAI-compatible providers: where they live and which variable usually holds their key.

A provider is named in settings either by URL (`llm.base_url`) or, in `llm.fallbacks`, by a
short spec such as `"groq:openai/gpt-oss-120b"` or a table with its own base_url, model and key.
Everything here is resolved and checked once, when the generator is built, so a bad
configuration is a ConfigError before the first question rather than a failure during one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sitecite.config import check_base_url
from sitecite.errors import ConfigError


@dataclass(frozen=True)
class Provider:
    """A hosted or local service speaking chat completions."""

    name: str
    base_url: str
    key_env: str  # "" when the service needs no key (local servers)
    hosts: tuple[str, ...] = ()


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", ("api.openai.com",)),
        Provider("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", ("api.groq.com",)),
        Provider(
            "gemini",
            "https://generativelanguage.googleapis.com/v1beta/openai",
            "GEMINI_API_KEY",
            ("generativelanguage.googleapis.com",),
        ),
        Provider(
            "openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", ("openrouter.ai",)
        ),
        Provider(
            "together",
            "https://api.together.xyz/v1",
            "TOGETHER_API_KEY",
            ("api.together.xyz", "api.together.ai"),
        ),
        Provider("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", ("api.mistral.ai",)),
        Provider(
            "deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", ("api.deepseek.com",)
        ),
        Provider(
            "fireworks",
            "https://api.fireworks.ai/inference/v1",
            "FIREWORKS_API_KEY",
            ("api.fireworks.ai",),
        ),
        Provider(
            "cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY", ("api.cerebras.ai",)
        ),
        Provider("ollama", "http://127.0.0.1:11434/v1", ""),
        Provider("lmstudio", "http://127.0.0.1:1234/v1", ""),
        Provider("llamacpp", "http://127.0.0.1:8080/v1", ""),
        Provider("vllm", "http://127.0.0.1:8000/v1", ""),
    )
}


@dataclass(frozen=True)
class Endpoint:
    """One resolved link of the chain: URL, model, key and a name for the Trace."""

    name: str
    base_url: str
    model: str
    api_key: str
    overrides: tuple[tuple[str, Any], ...] = ()  # per-provider settings (timeout_seconds, ...)

    def setting(self, key: str, default: Any) -> Any:
        return dict(self.overrides).get(key, default)


def provider_for_url(base_url: str) -> Provider | None:
    host = (urlsplit(base_url).hostname or "").lower()
    for provider in PROVIDERS.values():
        if any(host == h or host.endswith("." + h) for h in provider.hosts):
            return provider
    return None


def resolve_api_key(
    base_url: str,
    api_key: str = "",
    api_key_env: str = "",
    *,
    key: str = "llm",
    environ: Mapping[str, str] | None = None,
) -> str:
    """The key to send: given directly, read from the named variable, or the provider's usual one.

    A variable that is named (or implied by a known host) but unset is a ConfigError, so a
    missing key is found at start-up and not as a 401 on a visitor's question.
    """
    environ = os.environ if environ is None else environ
    if api_key:
        return api_key
    if api_key_env:
        value = environ.get(api_key_env, "")
        if not value:
            raise ConfigError(
                f"bad setting '{key}.api_key_env': the variable {api_key_env} is not set"
            )
        return value
    provider = provider_for_url(base_url)
    if provider is None or not provider.key_env:
        return ""  # a local or self-hosted server; many need no key
    value = environ.get(provider.key_env, "")
    if not value:
        raise ConfigError(
            f"{key}.base_url points at {provider.name} but no key is set: export "
            f"{provider.key_env} or set {key}.api_key / {key}.api_key_env"
        )
    return value


def parse_fallback(entry: str | Mapping[str, Any], position: int) -> dict[str, Any]:
    """A fallback entry as a dict: `"groq:model"`, `"https://host/v1|model"`, or a table."""
    key = f"llm.fallbacks[{position}]"
    if isinstance(entry, Mapping):
        data = dict(entry)
        provider = data.pop("provider", "")
        if provider:
            data.setdefault("base_url", _named(provider, key).base_url)
        return data
    text = entry.strip()
    if text.startswith(("http://", "https://")):
        url, sep, model = text.rpartition("|")
        if not sep:
            raise ConfigError(
                f"bad setting '{key}': write a URL fallback as 'URL|MODEL', got '{entry}'"
            )
        return {"base_url": url, "model": model}
    name, sep, model = text.partition(":")
    if not sep or not model:
        raise ConfigError(
            f"bad setting '{key}': expected 'PROVIDER:MODEL' (e.g. 'groq:llama-3.3-70b-"
            f"versatile'), a 'URL|MODEL' or a table, got '{entry}'"
        )
    return {"base_url": _named(name, key).base_url, "model": model}


def _named(name: str, key: str) -> Provider:
    provider = PROVIDERS.get(name.strip().lower())
    if provider is None:
        raise ConfigError(
            f"bad setting '{key}': unknown provider '{name}'; known: "
            f"{', '.join(sorted(PROVIDERS))} (or give a base_url)"
        )
    return provider


ENDPOINT_KEYS = frozenset(
    {
        "base_url",
        "model",
        "api_key",
        "api_key_env",
        "name",
        "timeout_seconds",
        "retries",
        "temperature",
        "max_tokens",
        "reasoning_effort",
        "json_mode",
    }
)


def resolve_endpoint(
    data: Mapping[str, Any], key: str, environ: Mapping[str, str] | None = None
) -> Endpoint:
    """Check one provider's settings (URL, model, key) and return it ready to call."""
    unknown = sorted(set(data) - ENDPOINT_KEYS)
    if unknown:
        raise ConfigError(f"bad setting '{key}': unknown field(s) {', '.join(unknown)}")
    base_url = check_base_url(str(data.get("base_url", "")), f"{key}.base_url")
    model = str(data.get("model", "")).strip()
    if not model:
        raise ConfigError(f"bad setting '{key}.model': a model name is required for {base_url}")
    api_key = resolve_api_key(
        base_url,
        str(data.get("api_key", "")),
        str(data.get("api_key_env", "")),
        key=key,
        environ=environ,
    )
    provider = provider_for_url(base_url)
    name = str(
        data.get("name") or f"{provider.name if provider else urlsplit(base_url).netloc}:{model}"
    )
    overrides = tuple(
        (k, v)
        for k, v in data.items()
        if k not in {"base_url", "model", "api_key", "api_key_env", "name"}
    )
    return Endpoint(name, base_url, model, api_key, overrides)
