"""Summary statistics of a list of numbers."""


def mean(values):
    """The arithmetic mean."""
    if not values:
        raise ValueError("mean of an empty list")
    return sum(values) / len(values)


def median(values):
    """The middle value; for an even count, the mean of the two middle values."""
    if not values:
        raise ValueError("median of an empty list")
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle]


def spread(values):
    """The distance between the largest and the smallest value."""
    return max(values) - min(values)
