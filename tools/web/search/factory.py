"""The provider for a configuration."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.tools.web.search.brave import BraveSearch
from cairn.tools.web.search.config import SearchConfig
from cairn.tools.web.search.exa import ExaSearch
from cairn.tools.web.search.providers import SearchProvider
from cairn.tools.web.search.searxng import SearxngSearch
from cairn.tools.web.search.tavily import TavilySearch

if TYPE_CHECKING:
    import httpx

KINDS: dict[str, type] = {
    "searxng": SearxngSearch,
    "tavily": TavilySearch,
    "brave": BraveSearch,
    "exa": ExaSearch,
}


def build_provider(config: SearchConfig, transport: httpx.BaseTransport | None = None) -> SearchProvider:
    return KINDS[config.provider](config, transport)
