"""Web search providers behind one small interface, and how the configured one is chosen."""

from cairn.tools.web.search.config import SearchConfig, resolve_search_config
from cairn.tools.web.search.factory import build_provider
from cairn.tools.web.search.providers import SearchError, SearchHit, SearchProvider

__all__ = [
    "SearchConfig",
    "SearchError",
    "SearchHit",
    "SearchProvider",
    "build_provider",
    "resolve_search_config",
]
