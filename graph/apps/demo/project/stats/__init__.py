"""tinystats: small, dependency-free summary statistics."""

from stats.core import mean, median, spread

__all__ = ["mean", "median", "spread"]
