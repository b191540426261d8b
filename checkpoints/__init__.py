"""Persistence: checkpointer factory, tool-call journal, transcript, session index, pruning.

Names are imported lazily so light users (``cairn sessions``) can read the
session index without loading LangGraph or LangChain.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cairn.checkpoints.errors import StorageConfigError
    from cairn.checkpoints.journal import JournalEntry, ToolJournal
    from cairn.checkpoints.location import default_location, state_dir
    from cairn.checkpoints.sessions import SessionIndex, SessionRecord
    from cairn.checkpoints.store import Store, open_store
    from cairn.checkpoints.transcript import Transcript

_EXPORTS = {
    "JournalEntry": "cairn.checkpoints.journal",
    "ToolJournal": "cairn.checkpoints.journal",
    "default_location": "cairn.checkpoints.location",
    "state_dir": "cairn.checkpoints.location",
    "SessionIndex": "cairn.checkpoints.sessions",
    "SessionRecord": "cairn.checkpoints.sessions",
    "StorageConfigError": "cairn.checkpoints.errors",
    "StoreBusy": "cairn.checkpoints.errors",
    "StoreError": "cairn.checkpoints.errors",
    "Store": "cairn.checkpoints.store",
    "open_store": "cairn.checkpoints.store",
    "Transcript": "cairn.checkpoints.transcript",
}

__all__ = [
    "JournalEntry",
    "SessionIndex",
    "SessionRecord",
    "StorageConfigError",
    "Store",
    "StoreBusy",
    "StoreError",
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
