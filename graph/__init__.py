"""The agent (``cairn.graph``): what runs a conversation and what drives it.

Each folder is a layer, lowest first: ``models`` (model factory, scripted model, text tool
calls, model errors), ``core`` (the checkpointed state and ToolCallInfo, the run-time context,
prompts, messages, the session's rule and sandbox setup, compaction), ``display`` (text/Markdown/
HTML views of results), ``nodes`` (every node of the graph), ``build`` (the compiled graph),
``session`` (the Session API) and ``apps`` (the ``cairn`` command, the notebook glue, the
LangGraph server entry).

Imports flow one way, down that list, to tools, policy and checkpoints (see
docs/architecture.md; tests/test_import_layers.py enforces it).
The public entry point is ``from cairn import Session``.
"""
