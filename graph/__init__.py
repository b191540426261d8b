"""The agent (``cairn.graph``): what runs a conversation and what drives it.

Core modules here: ``state`` (the checkpointed state and ToolCallInfo), ``context`` (what
nodes get at run time), ``build`` (the compiled graph), ``prompts``, ``messages``, ``rules``,
``call_details``.  Subpackages: ``nodes`` (the five nodes), ``models`` (model factory, scripted
model, text tool calls, model errors), ``display`` (text/Markdown/HTML views of results),
``session`` (the Session API), ``notebook`` (Jupyter glue) and ``cli``.

Imports flow one way: cli / notebook → session → build → nodes → models, display and the
core → tools, policy, checkpoints (see docs/architecture.md; a test enforces it).
The public entry point is ``from cairn import Session``.
"""
