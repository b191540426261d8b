"""Tavily: ``POST /search`` with a bearer key (its HTTP API; the SDK adds nothing we need)."""

from __future__ import annotations

from cairn.tools.web.search.providers import HttpProvider, SearchError, SearchHit, hits_from


class TavilySearch(HttpProvider):
    name = "tavily"

    def search(self, query: str, max_results: int, domains: list[str]) -> list[SearchHit]:
        payload: dict[str, object] = {"query": query, "max_results": max_results}
        if domains:
            payload["include_domains"] = domains
        body = self.request(
            "POST", "/search", json=payload, headers={"Authorization": f"Bearer {self.config.api_key}"}
        )
        if not isinstance(body, dict):
            raise SearchError("tavily answered with something other than a JSON object")
        return hits_from(body.get("results"), "title", "url", "content", max_results, self.name)
