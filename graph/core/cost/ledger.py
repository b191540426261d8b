"""A ledger of model usage: ``{model: {input_tokens, cached_input_tokens, output_tokens, calls}}``.

Ledgers hold tokens, never money: what they cost is worked out with the pricing in force
(``ledger_cost``), so a price fixed in ``[pricing]`` applies to past runs too.  They are plain
dicts of ints, checkpointed in the session's state (``spend``, ``run_spend``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cairn.graph.core.cost.prices import Pricing

Ledger = dict[str, dict[str, int]]
FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens", "calls")


def usage_tokens(usage: Mapping[str, Any] | None) -> tuple[int, int, int]:
    """(input, cached input, output) from LangChain ``usage_metadata``."""
    usage = usage or {}
    details = usage.get("input_token_details") or {}
    cached = details.get("cache_read") if isinstance(details, Mapping) else None
    return (
        int(usage.get("input_tokens") or 0),
        int(cached or usage.get("cached_input_tokens") or 0),
        int(usage.get("output_tokens") or 0),
    )


def add_usage(ledger: Mapping[str, Any] | None, model: str, usage: Mapping[str, Any] | None) -> Ledger:
    """A new ledger: ``ledger`` plus one model call's usage."""
    tokens_in, cached, tokens_out = usage_tokens(usage)
    one = {
        model or "unknown": {
            "input_tokens": tokens_in,
            "cached_input_tokens": cached,
            "output_tokens": tokens_out,
            "calls": 1,
        }
    }
    return merge(ledger, one)


def merge(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> Ledger:
    out: Ledger = {m: dict(v) for m, v in (a or {}).items()}
    for model, row in (b or {}).items():
        mine = out.setdefault(model, dict.fromkeys(FIELDS, 0))
        for key in FIELDS:
            mine[key] = mine.get(key, 0) + int(row.get(key, 0) or 0)
    return out


def subtract(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> Ledger:
    """``a - b`` (what was spent since ``b``); models with nothing left are dropped."""
    out: Ledger = {}
    for model, row in (a or {}).items():
        base = (b or {}).get(model) or {}
        diff = {k: int(row.get(k, 0) or 0) - int(base.get(k, 0) or 0) for k in FIELDS}
        if any(diff.values()):
            out[model] = diff
    return out


@dataclass
class Cost:
    """What a ledger cost: ``amount`` over the priced models; ``unknown`` lists the others."""

    amount: float = 0.0
    unknown: list[str] = field(default_factory=list)
    by_model: dict[str, float | None] = field(default_factory=dict)

    @property
    def known(self) -> bool:
        return not self.unknown

    def usage_fields(self) -> dict[str, Any]:
        """The keys added to ``usage``: ``cost`` (dollars; ``None`` when no model is priced)
        and, when some model has no price, ``price_unknown`` (their names)."""
        priced = any(v is not None for v in self.by_model.values())
        out: dict[str, Any] = {"cost": round(self.amount, 6) if priced or not self.unknown else None}
        if self.unknown:
            out["price_unknown"] = list(self.unknown)
        return out


def ledger_cost(ledger: Mapping[str, Any] | None, pricing: Pricing) -> Cost:
    out = Cost()
    for model, row in (ledger or {}).items():
        price = pricing.price(model)
        if price is None:
            out.unknown.append(model)
            out.by_model[model] = None
            continue
        amount = price.cost(
            int(row.get("input_tokens", 0)),
            int(row.get("cached_input_tokens", 0)),
            int(row.get("output_tokens", 0)),
        )
        out.by_model[model] = amount
        out.amount += amount
    return out
