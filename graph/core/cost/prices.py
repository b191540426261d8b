"""The price table: US dollars per million tokens for input, cached input and output.

The built-in table is what the providers published on ``PRICES_AS_OF``; prices change, so
``[pricing]`` in settings and ``Session(pricing=)`` override or add models::

    [pricing]
    "gpt-4o" = { input = 2.5, cached_input = 1.25, output = 10.0 }
    "my-local-model" = { input = 0, output = 0 }

A model is found by its name (lower case, a ``provider/`` prefix dropped) or by the longest
table name it starts with followed by ``-`` (``gpt-4o-2024-08-06`` is priced as ``gpt-4o``).
A model in neither is "price unknown": its tokens are counted, never given a made-up price.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cairn.errors import ConfigError

CURRENCY = "USD"
PRICES_AS_OF = "2025-08-15"


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens. ``cached_input`` defaults to ``input`` when not published."""

    input: float
    output: float
    cached_input: float | None = None

    def cost(self, input_tokens: int, cached_tokens: int, output_tokens: int) -> float:
        """Cached tokens are part of ``input_tokens`` (as providers report them)."""
        cached = min(max(cached_tokens, 0), max(input_tokens, 0))
        cached_rate = self.input if self.cached_input is None else self.cached_input
        return (
            (input_tokens - cached) * self.input + cached * cached_rate + output_tokens * self.output
        ) / 1e6


#: name → (input, cached input, output), dollars per million tokens, as of ``PRICES_AS_OF``.
_TABLE: dict[str, tuple[float, float | None, float]] = {
    "gpt-5": (1.25, 0.125, 10.0),
    "gpt-5-mini": (0.25, 0.025, 2.0),
    "gpt-5-nano": (0.05, 0.005, 0.40),
    "gpt-4.1": (2.0, 0.50, 8.0),
    "gpt-4.1-mini": (0.40, 0.10, 1.60),
    "gpt-4.1-nano": (0.10, 0.025, 0.40),
    "gpt-4o": (2.50, 1.25, 10.0),
    "gpt-4o-mini": (0.15, 0.075, 0.60),
    "o3": (2.0, 0.50, 8.0),
    "o3-mini": (1.10, 0.55, 4.40),
    "o4-mini": (1.10, 0.275, 4.40),
    "claude-opus-4": (15.0, 1.50, 75.0),
    "claude-opus-4-1": (15.0, 1.50, 75.0),
    "claude-sonnet-4": (3.0, 0.30, 15.0),
    "claude-3-7-sonnet": (3.0, 0.30, 15.0),
    "claude-3-5-haiku": (0.80, 0.08, 4.0),
    "gemini-2.5-pro": (1.25, 0.31, 10.0),
    "gemini-2.5-flash": (0.30, 0.075, 2.50),
    "gemini-2.5-flash-lite": (0.10, 0.025, 0.40),
    "deepseek-chat": (0.27, 0.07, 1.10),
    "deepseek-reasoner": (0.55, 0.14, 2.19),
}
BUILTIN: dict[str, Price] = {name: Price(i, o, c) for name, (i, c, o) in _TABLE.items()}
#: ``script:FILE`` replays a conversation: no provider, nothing to pay.
BUILTIN["scripted"] = Price(0.0, 0.0, 0.0)


def normalize(model: str) -> str:
    name = model.strip().lower()
    return name.rsplit("/", 1)[-1]


class Pricing:
    """The built-in table with overrides; ``price(model)`` is ``None`` for an unknown model."""

    def __init__(self, overrides: Mapping[str, Price] | None = None, *, builtin: bool = True) -> None:
        self.table: dict[str, Price] = dict(BUILTIN) if builtin else {}
        for name, price in (overrides or {}).items():
            self.table[normalize(name)] = price

    def price(self, model: str | None) -> Price | None:
        if not model:
            return None
        name = normalize(model)
        if name in self.table:
            return self.table[name]
        best = max(
            (k for k in self.table if name.startswith(k + "-") or name.startswith(k + ":")),
            key=len,
            default=None,
        )
        return self.table[best] if best is not None else None

    def with_overrides(self, overrides: Mapping[str, Price]) -> Pricing:
        out = Pricing(builtin=False)
        out.table = {**self.table, **{normalize(k): v for k, v in overrides.items()}}
        return out


def parse_price(name: str, raw: Any) -> Price:
    """One ``[pricing]`` entry: ``{input, output, cached_input?}`` (numbers ≥ 0), or a Price."""
    if isinstance(raw, Price):
        return raw
    if not isinstance(raw, Mapping):
        raise ConfigError(f"pricing for {name!r}: expected a table like {{ input = 2.5, output = 10 }}")
    unknown = set(raw) - {"input", "output", "cached_input"}
    if unknown:
        raise ConfigError(f"pricing for {name!r}: unknown keys {sorted(unknown)}")
    values: dict[str, float] = {}
    for key in ("input", "output", "cached_input"):
        value = raw.get(key)
        if value is None:
            if key == "cached_input":
                continue
            raise ConfigError(f"pricing for {name!r}: {key} is missing")
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ConfigError(f"pricing for {name!r}: {key} must be a number >= 0")
        values[key] = float(value)
    return Price(values["input"], values["output"], values.get("cached_input"))


def parse_pricing(
    tables: Iterable[Mapping[str, Any] | None], extra: Mapping[str, Any] | None = None
) -> Pricing:
    """The pricing from the ``[pricing]`` tables of each settings source (user, then project:
    later wins) and ``extra`` (``Session(pricing=)``, wins over all). Pure: no file is read."""
    overrides: dict[str, Price] = {}
    for table in [*tables, extra]:
        if not table:
            continue
        if not isinstance(table, Mapping):
            raise ConfigError("[pricing] must be a table of model = { input, output, cached_input }")
        for name, raw in table.items():
            overrides[normalize(str(name))] = parse_price(str(name), raw)
    return Pricing(overrides)
