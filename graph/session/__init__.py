"""The Session API: how scripts, notebooks, the CLI and tests drive cairn."""

from cairn.graph.session.errors import SessionError
from cairn.graph.session.result import RunResult
from cairn.graph.session.session import MODES, Session

__all__ = ["MODES", "RunResult", "Session", "SessionError"]
