"""Keeping long sessions inside the model's context window.

- ``tokens``: offline token counts (calibrated estimate; exact for OpenAI names with the extra).
- ``windows``: each model's context window (setting, ``/models`` metadata, known defaults).
- ``budget``: thresholds and budgets of one session.
- ``plan``: where to cut without separating a tool call from its result (pure), and the checks.
- ``view``: what the model is sent, from the append-only transcript and the latest marker.
- ``summary``: the fixed summary template and the deterministic fallback.
- ``prepare``: what ``reasoning`` calls before and after its model call.
- ``spill``: big tool outputs stored whole, head and tail in the prompt.

The ``compaction`` graph node (journaled, crash-safe) is ``cairn.graph.nodes.compaction``;
``Session.compact`` lives in ``cairn.graph.session.compact``.
"""
