"""Money: a price table, what each model call cost, and budgets that pause a run (issue 34).

Amounts are in US dollars (``CURRENCY``); prices are per million tokens.  Nothing here
imports the graph's nodes or sessions: the nodes and the session call in.
"""

from cairn.graph.core.cost.ledger import Ledger, add_usage, ledger_cost, merge, subtract
from cairn.graph.core.cost.prices import CURRENCY, PRICES_AS_OF, Price, Pricing, parse_pricing

__all__ = [
    "CURRENCY",
    "PRICES_AS_OF",
    "Ledger",
    "Price",
    "Pricing",
    "add_usage",
    "ledger_cost",
    "merge",
    "parse_pricing",
    "subtract",
]
