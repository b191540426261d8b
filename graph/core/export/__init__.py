"""``cairn export``: a session as a shareable transcript (Markdown, JSON or self-contained HTML).

Tool calls keep their lifecycle (status, risk, decision, sandbox), diffs and results; the
session's cost is included; secrets the environment filter knows are redacted.
"""

from cairn.graph.core.export.document import session_document
from cairn.graph.core.export.render import FORMATS, render

__all__ = ["FORMATS", "export_session", "render", "session_document"]


def export_session(store: object, session_id: str, fmt: str = "md", *, pricing: object = None) -> str:
    """The session stored under ``session_id`` rendered as ``fmt`` (md, json, html), redacted."""
    from cairn.graph.core.export.redact import Redactor

    doc = Redactor.from_environment().apply(session_document(store, session_id, pricing))
    return render(doc, fmt)
