"""Persistence: checkpointer factory, tool-call journal, transcript, session index, pruning."""

from checkpoints.journal import JournalEntry, ToolJournal
from checkpoints.location import default_location, state_dir
from checkpoints.sessions import SessionIndex, SessionRecord
from checkpoints.store import StorageConfigError, Store, open_store
from checkpoints.transcript import Transcript

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
