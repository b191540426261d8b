"""Brave Search API: ``GET /res/v1/web/search`` with an ``X-Subscription-Token``."""

from __future__ import annotations

from cairn.tools.web.search.providers import HttpProvider, SearchError, SearchHit, hits_from, with_domains


class BraveSearch(HttpProvider):
    name = "brave"

    def search(self, query: str, max_results: int, domains: list[str]) -> list[SearchHit]:
        body = self.request(
            "GET",
            "/res/v1/web/search",
            params={"q": with_domains(query, domains), "count": min(max_results, 20)},
            headers={"X-Subscription-Token": self.config.api_key or "", "Accept": "application/json"},
        )
        if not isinstance(body, dict):
            raise SearchError("brave answered with something other than a JSON object")
        web = body.get("web") or {}
        rows = web.get("results", []) if isinstance(web, dict) else None
        return hits_from(rows, "title", "url", "description", max_results, self.name)
