"""Persistence: checkpointer factory, tool-call journal, transcript, session index, pruning.

Names are imported lazily so light users (``cairn sessions``) can read the
session index without loading LangGraph or LangChain.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from checkpoints.journal import JournalEntry, ToolJournal
    from checkpoints.location import default_location, state_dir
    from checkpoints.sessions import SessionIndex, SessionRecord
    from checkpoints.store import StorageConfigError, Store, open_store
    from checkpoints.transcript import Transcript

_EXPORTS = {
    "JournalEntry": "checkpoints.journal",
    "ToolJournal": "checkpoints.journal",
    "default_location": "checkpoints.location",
    "state_dir": "checkpoints.location",
    "SessionIndex": "checkpoints.sessions",
    "SessionRecord": "checkpoints.sessions",
    "StorageConfigError": "checkpoints.store",
    "Store": "checkpoints.store",
    "open_store": "checkpoints.store",
    "Transcript": "checkpoints.transcript",
}

__all__ = [
    "JournalEntry",
    "SessionIndex",
    "SessionRecord",
    "StorageConfigError",
    "Store",
    "ToolJournal",
    "Transcript",
    "default_location",
    "open_store",
    "state_dir",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(name)
    return getattr(import_module(module), name)
