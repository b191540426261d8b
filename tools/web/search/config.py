"""Which search provider a session uses: the user's ``[web_search]`` settings, then the environment.

```toml
[web_search]                      # in the user settings file (not the project's: see below)
provider = "searxng"              # searxng | tavily | brave | exa
url = "http://127.0.0.1:8888"     # searxng: the instance; others: an API base URL override
api_key_env = "MY_TAVILY_KEY"     # where the key is (default: the provider's usual variable)
timeout = 15                      # seconds per search
```

Without a table, the environment decides: ``CAIRN_SEARCH_PROVIDER`` names one; otherwise the first
of ``SEARXNG_URL``, ``TAVILY_API_KEY``, ``BRAVE_API_KEY`` (or ``BRAVE_SEARCH_API_KEY``) and
``EXA_API_KEY`` that is set.  A project's own settings file cannot choose the provider: it comes
with the repository, and search queries can carry what the agent has read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cairn.errors import ConfigError

PROVIDERS = ("searxng", "tavily", "brave", "exa")
KEY_VARIABLES: dict[str, tuple[str, ...]] = {
    "searxng": (),
    "tavily": ("TAVILY_API_KEY",),
    "brave": ("BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY"),
    "exa": ("EXA_API_KEY",),
}
DEFAULT_URLS = {
    "tavily": "https://api.tavily.com",
    "brave": "https://api.search.brave.com",
    "exa": "https://api.exa.ai",
}
DEFAULT_TIMEOUT = 15.0


class SearchConfigError(ConfigError):
    """The ``[web_search]`` settings or the environment name a provider that cannot be used."""


@dataclass(frozen=True)
class SearchConfig:
    provider: str
    url: str
    api_key: str | None = None
    timeout: float = DEFAULT_TIMEOUT

    def describe(self) -> str:
        return f"{self.provider} ({self.url})"


def resolve_search_config(
    table: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None
) -> SearchConfig | None:
    """The configured provider, ``None`` when there is none; ``SearchConfigError`` when the
    configuration names one that lacks what it needs (a URL, a key)."""
    env = os.environ if env is None else env
    table = dict(table or {})
    unknown = set(table) - {"provider", "url", "api_key_env", "timeout"}
    if unknown:
        raise SearchConfigError(f"[web_search]: unknown key(s) {', '.join(sorted(unknown))}")
    provider = str(table.get("provider") or env.get("CAIRN_SEARCH_PROVIDER") or "").strip().lower()
    if not provider:
        provider = _provider_from_env(env)
        if not provider:
            return None
    if provider not in PROVIDERS:
        raise SearchConfigError(
            f"unknown web search provider {provider!r}; choose one of {', '.join(PROVIDERS)}"
        )
    url = str(table.get("url") or "").strip()
    if provider == "searxng":
        url = url or env.get("SEARXNG_URL", "").strip()
        if not url:
            raise SearchConfigError(
                "web search provider searxng needs a URL ([web_search] url or SEARXNG_URL)"
            )
    url = (url or DEFAULT_URLS[provider]).rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise SearchConfigError(f"web search URL {url!r} must start with http:// or https://")
    key = _api_key(provider, table, env)
    if KEY_VARIABLES[provider] and not key:
        names = " or ".join(_key_names(provider, table))
        raise SearchConfigError(f"web search provider {provider} needs an API key in {names}")
    try:
        timeout = float(table.get("timeout", DEFAULT_TIMEOUT))
    except (TypeError, ValueError):
        raise SearchConfigError("[web_search] timeout must be a number of seconds") from None
    return SearchConfig(provider=provider, url=url, api_key=key, timeout=max(1.0, min(timeout, 120.0)))


def _provider_from_env(env: Mapping[str, str]) -> str:
    if env.get("SEARXNG_URL", "").strip():
        return "searxng"
    for provider in ("tavily", "brave", "exa"):
        if any(env.get(name, "").strip() for name in KEY_VARIABLES[provider]):
            return provider
    return ""


def _key_names(provider: str, table: Mapping[str, Any]) -> tuple[str, ...]:
    custom = str(table.get("api_key_env") or "").strip()
    return (custom,) if custom else KEY_VARIABLES[provider]


def _api_key(provider: str, table: Mapping[str, Any], env: Mapping[str, str]) -> str | None:
    for name in _key_names(provider, table):
        value = env.get(name, "").strip()
        if value:
            return value
    return None
