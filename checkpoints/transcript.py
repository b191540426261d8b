"""The transcript: messages stored once, append-only, as a tree of parent pointers.

LangGraph's ``add_messages`` channel re-stores the whole history in every
checkpoint (quadratic growth).  cairn stores each message once in
``cairn_messages`` with a pointer to its parent and keeps only the id of the
newest message (the *head*) in checkpointed state.  Reading a transcript walks
from a head to the root; an earlier checkpoint's head still reads the transcript
as it was then, and continuing from it simply grows another branch, so time
travel and forks need no copying.  A node that crashes after writing a message
but before its checkpoint leaves an unreachable row: harmless (nothing points to
it), and ``prune_unreachable`` can remove such rows during maintenance.
"""

from __future__ import annotations

import threading
import uuid
import zlib
from collections.abc import Callable
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    message_to_dict,
    messages_from_dict,
)

from cairn.checkpoints import fastjson
from cairn.checkpoints.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS cairn_messages (
    thread_id TEXT NOT NULL,
    id TEXT NOT NULL,
    parent_id TEXT,
    data BLOB NOT NULL,
    PRIMARY KEY (thread_id, id)
);
"""

# From a head to the root, nearest first and unsorted, so SQLite yields rows lazily as it recurses.
_TAIL_SQL = (
    "WITH RECURSIVE chain(id, parent_id, data) AS ("
    " SELECT id, parent_id, data FROM cairn_messages WHERE thread_id = ? AND id = ?"
    " UNION ALL"
    " SELECT m.id, m.parent_id, m.data FROM chain c"
    " CROSS JOIN cairn_messages m ON m.thread_id = ? AND m.id = c.parent_id"
    ") SELECT id, data FROM chain"
)


class Transcript:
    """Append-only message store with an in-process cache of recent chains."""

    def __init__(self, db: Database) -> None:
        self.db = db
        db.script(SCHEMA)
        self._cache: dict[tuple[str, str], tuple[BaseMessage, ...]] = {}
        self._cache_lock = threading.Lock()

    def append(
        self,
        thread_id: str,
        parent: str | None,
        messages: list[BaseMessage],
        *,
        also: Callable[[str | None], list[tuple[str, tuple[Any, ...]]]] | None = None,
    ) -> str | None:
        """Store ``messages`` after ``parent``; returns the new head (``parent`` if none given).

        ``also(new_head)``: more statements committed in the same transaction (e.g. staging
        the message in ``cairn_inbox`` and marking the session running).
        """
        if not messages:
            return parent
        statements: list[tuple[str, tuple[Any, ...]]] = []
        head = parent
        ids: list[str] = []
        for msg in messages:
            mid = _message_key(msg)
            statements.append(
                (
                    "INSERT INTO cairn_messages (thread_id, id, parent_id, data) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (thread_id, id) DO UPDATE SET parent_id = excluded.parent_id, data = excluded.data",
                    (thread_id, mid, head, encode(message_to_dict(msg))),
                )
            )
            ids.append(mid)
            head = mid
        if also is not None:
            statements += also(head)
        self.db.write_many(statements)
        with self._cache_lock:
            base = self._cache.get((thread_id, parent)) if parent else ()
            if base is not None:
                chain = base
                for mid, msg in zip(ids, messages, strict=True):
                    chain = (*chain, msg)
                    self._cache[(thread_id, mid)] = chain
                self._trim_cache()
        return head

    def read(self, thread_id: str, head: str | None) -> list[BaseMessage]:
        """Messages from the root to ``head`` (inclusive), oldest first."""
        if not head:
            return []
        with self._cache_lock:
            cached = self._cache.get((thread_id, head))
        if cached is not None:
            return list(cached)
        # Nearest first and unsorted (sorting by depth would move every blob once more).
        rows = self.db.query(_TAIL_SQL, (thread_id, head, thread_id))
        if not rows or rows[0][0] != head:
            raise LookupError(f"transcript head {head!r} of thread {thread_id!r} is missing")
        messages = build_messages([decode(data) for _id, data in reversed(rows)])
        with self._cache_lock:
            self._cache[(thread_id, head)] = tuple(messages)
            self._trim_cache()
        return messages

    def tail(
        self, thread_id: str, head: str | None, *, stop: Callable[[BaseMessage], bool]
    ) -> list[BaseMessage]:
        """The newest messages, from the last one matching ``stop`` (inclusive) to ``head``.

        Reads and decodes only those rows (the walk from the head is lazy), so looking at
        the current turn costs the same at message 10 and at message 10,000.
        """
        if not head:
            return []
        with self._cache_lock:
            cached = self._cache.get((thread_id, head))
        if cached is not None:
            for index in range(len(cached) - 1, -1, -1):
                if stop(cached[index]):
                    return list(cached[index:])
            return list(cached)
        collected: list[BaseMessage] = []
        with self.db.stream(_TAIL_SQL, (thread_id, head, thread_id)) as rows:
            for _id, data in rows:
                message = build_messages([decode(data)])[0]
                collected.append(message)
                if stop(message):
                    break
        if not collected:
            raise LookupError(f"transcript head {head!r} of thread {thread_id!r} is missing")
        collected.reverse()
        return collected

    def count(self, thread_id: str, head: str | None) -> int:
        return len(self.read(thread_id, head))

    def _trim_cache(self) -> None:
        # Keep the cache small: chains share their messages, only the tuples are extra.
        if len(self._cache) > 64:
            for key in list(self._cache)[: len(self._cache) - 32]:
                del self._cache[key]

    def prune_unreachable(self, thread_id: str, heads: list[str]) -> int:
        """Delete messages of ``thread_id`` not on the path of any of ``heads``."""
        keep: set[str] = set()
        for head in heads:
            rows = self.db.query(_TAIL_SQL, (thread_id, head, thread_id))
            keep.update(r[0] for r in rows)
        rows = self.db.query("SELECT id FROM cairn_messages WHERE thread_id = ?", (thread_id,))
        doomed = [r[0] for r in rows if r[0] not in keep]
        self.db.write_many(
            ("DELETE FROM cairn_messages WHERE thread_id = ? AND id = ?", (thread_id, mid)) for mid in doomed
        )
        return len(doomed)

    def delete_thread(self, thread_id: str) -> None:
        self.db.write("DELETE FROM cairn_messages WHERE thread_id = ?", (thread_id,))
        with self._cache_lock:
            for key in [k for k in self._cache if k[0] == thread_id]:
                del self._cache[key]


#: Messages larger than this are stored zlib-compressed (tool output and code compress 3-5x).
COMPRESS_ABOVE = 512


def encode(data: dict[str, Any]) -> bytes:
    """JSON bytes, zlib-compressed above ``COMPRESS_ABOVE`` (one BLOB/BYTEA column for both)."""
    raw = fastjson.dumps_bytes(data)
    if len(raw) <= COMPRESS_ABOVE:
        return raw
    return zlib.compress(raw, 6)


def decode(stored: str | bytes | memoryview) -> dict[str, Any]:
    """Reads every stored form: JSON text (older SQLite rows), JSON bytes, zlib bytes.

    A message is a JSON object, so plain JSON starts with ``{``; zlib data never does (0x78).
    """
    if isinstance(stored, str):
        return fastjson.loads(stored)
    data = bytes(stored)
    return fastjson.loads(data if data[:1] == b"{" else zlib.decompress(data))


_STORED_TYPES: dict[str, type[BaseMessage]] = {
    "human": HumanMessage,
    "ai": AIMessage,
    "tool": ToolMessage,
    "system": SystemMessage,
}
_FIELDS = {kind: frozenset(cls.model_fields) for kind, cls in _STORED_TYPES.items()}
_set = object.__setattr__


def build_messages(stored: list[dict[str, Any]]) -> list[BaseMessage]:
    """Messages from ``message_to_dict`` form, in bulk.

    What the transcript stores was dumped (every field) from validated messages, so the four
    common types are rebuilt the way pydantic's ``model_construct`` does it, without validating
    again and without its per-field loop: about eight times cheaper than validation, which was
    most of the cost of resuming a long session.  Anything else (another type, fields of another
    version) goes through ``messages_from_dict``.
    """
    out: list[BaseMessage] = []
    for item in stored:
        kind = item.get("type")
        data = item.get("data")
        fields = _FIELDS.get(kind) if isinstance(kind, str) else None
        if (
            fields is not None
            and isinstance(data, dict)
            and data.get("type") == kind
            and data.keys() == fields
        ):
            message = _STORED_TYPES[kind].__new__(_STORED_TYPES[kind])
            _set(message, "__dict__", data)
            _set(message, "__pydantic_fields_set__", set(data))
            _set(message, "__pydantic_extra__", {})
            _set(message, "__pydantic_private__", None)
            out.append(message)
        else:
            out.append(messages_from_dict([item])[0])
    return out


def _message_key(msg: BaseMessage) -> str:
    """A fresh storage id, also set as the message's id.

    Never reuse a provider's or script's id: a re-run or a fork could repeat it with
    another parent and rewrite a branch that an earlier checkpoint still points to.
    """
    msg.id = uuid.uuid4().hex
    return msg.id
