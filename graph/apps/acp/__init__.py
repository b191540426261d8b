"""``cairn acp``: cairn as an Agent Client Protocol agent over stdio (Zed, JetBrains, Neovim).

Built on the maintained SDK (``agent-client-protocol``, imported as ``acp``; the ``acp`` extra).
Nothing is imported here: ``cairn --help`` must not load the SDK.

- ``command``: serving on stdio (the flags: ``cairn.graph.apps.cli.commands.acp``, which imports this
  package; this package never imports the CLI);
- ``agent``: the ACP methods (initialize, session/new|load|prompt|cancel|set_mode);
- ``session_config``: the settings, the editor's MCP servers, the modes a session starts with;
- ``bridge``: one cairn Session run on a worker thread, its events queued to the editor in order;
- ``turns``: a prompt turn: run, ask about gated calls, settle, the stop reason;
- ``updates``: the one translation of cairn's events to ``session/update`` notifications;
- ``tool_calls``: tool kinds, titles, locations, diffs and lifecycle statuses;
- ``permissions``: approvals as ``session/request_permission`` and the answers as decisions;
- ``replay``: a stored transcript as notifications (``session/load``);
- ``prompt_blocks``: the editor's prompt content as the text cairn sends;
- ``files``: the editor's file system (``fs/read_text_file``, ``fs/write_text_file``) for the tools.
"""
