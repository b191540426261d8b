"""Storage errors the rest of cairn sees, whatever database is underneath.

The nodes and the Session API catch these, never a driver's own exception types, so a
store on another engine only has to translate its errors here.
"""

from __future__ import annotations

from cairn.errors import CairnError, ConfigError


class StoreError(CairnError, RuntimeError):
    """The store could not complete an operation."""


class StoreBusy(StoreError):
    """Another writer holds the database (locked, busy); the same operation may succeed later."""


class StorageConfigError(ConfigError):
    """The database location cannot be used (bad URL, missing driver)."""
