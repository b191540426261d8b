"""Exa: ``POST /search`` with an ``x-api-key``; snippets from its highlights or text."""

from __future__ import annotations

from cairn.tools.web.search.providers import HttpProvider, SearchError, SearchHit, hits_from


class ExaSearch(HttpProvider):
    name = "exa"

    def search(self, query: str, max_results: int, domains: list[str]) -> list[SearchHit]:
        payload: dict[str, object] = {
            "query": query,
            "numResults": max_results,
            "contents": {"highlights": True},
        }
        if domains:
            payload["includeDomains"] = domains
        body = self.request("POST", "/search", json=payload, headers={"x-api-key": self.config.api_key or ""})
        if not isinstance(body, dict):
            raise SearchError("exa answered with something other than a JSON object")
        rows = body.get("results")
        if isinstance(rows, list):
            for row in rows:
                if isinstance(row, dict) and not row.get("snippet"):
                    highlights = row.get("highlights")
                    first = (
                        highlights[0] if isinstance(highlights, list) and highlights else row.get("text", "")
                    )
                    row["snippet"] = str(first)[:400]
        return hits_from(rows, "title", "url", "snippet", max_results, self.name)
