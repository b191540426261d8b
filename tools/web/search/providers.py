"""The provider interface: one ``search`` call that returns numbered-ready hits or raises
``SearchError`` with a message the model can act on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from cairn.errors import CairnError
from cairn.tools.web.search.config import SearchConfig

if TYPE_CHECKING:
    import httpx


@dataclass(frozen=True)
class SearchHit:
    title: str
    url: str
    snippet: str


class SearchError(CairnError, RuntimeError):
    """A search that failed: network, HTTP status, a body that is not the provider's format."""


class SearchProvider(Protocol):
    name: str

    def search(self, query: str, max_results: int, domains: list[str]) -> list[SearchHit]: ...


class HttpProvider:
    """Shared plumbing: one httpx request with the configured timeout, errors as ``SearchError``."""

    name = "http"

    def __init__(self, config: SearchConfig, transport: httpx.BaseTransport | None = None) -> None:
        self.config = config
        self.transport = transport

    def request(self, method: str, path: str, **kwargs: object) -> object:
        import httpx  # on the first search, not when the tool is registered

        url = self.config.url + path
        try:
            with httpx.Client(
                timeout=self.config.timeout, transport=self.transport, trust_env=True
            ) as client:
                response = client.request(method, url, **kwargs)  # type: ignore[arg-type]
        except httpx.TimeoutException:
            raise SearchError(f"{self.name} did not answer within {self.config.timeout:g} s") from None
        except httpx.HTTPError as exc:
            raise SearchError(f"{self.name} could not be reached: {type(exc).__name__}: {exc}") from None
        if response.status_code >= 400:
            excerpt = " ".join(response.text.split())[:200]
            raise SearchError(
                f"{self.name} answered HTTP {response.status_code}: {excerpt or '(empty body)'}"
            )
        try:
            return response.json()
        except ValueError:
            raise SearchError(f"{self.name} did not answer with JSON") from None


def with_domains(query: str, domains: list[str]) -> str:
    """``site:`` operators for providers without a domain filter of their own."""
    if not domains:
        return query
    sites = " OR ".join(f"site:{d}" for d in domains)
    return f"{query} ({sites})" if len(domains) > 1 else f"{query} {sites}"


def text(value: object) -> str:
    return " ".join(str(value).split()) if isinstance(value, str) else ""


def hits_from(rows: object, title: str, url: str, snippet: str, limit: int, provider: str) -> list[SearchHit]:
    """Hits from a list of JSON objects, skipping rows without a URL."""
    if not isinstance(rows, list):
        raise SearchError(f"{provider} answered without a result list")
    out = []
    for row in rows:
        if not isinstance(row, dict):
            continue
        link = text(row.get(url))
        if not link.startswith(("http://", "https://")):
            continue
        out.append(SearchHit(title=text(row.get(title)) or link, url=link, snippet=text(row.get(snippet))))
        if len(out) >= limit:
            break
    return out
