"""Every node of the agent graph, one module each: the five of a turn, and ``compaction``."""
