"""The core of the agent: its state, run-time context, prompts, loop memory, tool
selection, the session's rule and sandbox setup, and compaction (``compaction/``).
Nodes, the Session and the applications build on it; it imports only ``models`` and
the lower packages (``tools``, ``policy``, ``checkpoints``).
"""
