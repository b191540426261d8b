"""Views of results for people: plain text, Markdown and HTML of runs, calls and approvals.

Pure functions over ``RunResult``/``ToolCallInfo`` data; Jupyter picks the HTML, terminals the
text.  The notebook package (cell streaming, widgets) builds on these.
"""

from cairn.graph.display.results import (
    CallsTable,
    PendingView,
    ToolCallTable,
    calls_table,
    run_result_html,
    run_result_markdown,
    run_result_text,
    show_pending,
)

__all__ = [
    "CallsTable",
    "PendingView",
    "ToolCallTable",
    "calls_table",
    "run_result_html",
    "run_result_markdown",
    "run_result_text",
    "show_pending",
]
