"""SearXNG (self-hosted): ``GET /search?format=json`` (the instance must enable the json format)."""

from __future__ import annotations

from cairn.tools.web.search.providers import HttpProvider, SearchError, SearchHit, hits_from, with_domains


class SearxngSearch(HttpProvider):
    name = "searxng"

    def search(self, query: str, max_results: int, domains: list[str]) -> list[SearchHit]:
        body = self.request("GET", "/search", params={"q": with_domains(query, domains), "format": "json"})
        if not isinstance(body, dict):
            raise SearchError("searxng answered with something other than a JSON object")
        return hits_from(body.get("results"), "title", "url", "content", max_results, self.name)
