"""Redacting secrets from an export: the values of the environment variables the shell's
secret filter withholds from commands (``cairn.tools.shell.env.SecretFilter``, with
``CAIRN_SECRET_ENV``), and passwords in URLs."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

#: Shorter values are not redacted (``1``, ``true``: they would blank out ordinary text).
MIN_SECRET_CHARS = 6
_PASSWORD_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:)([^/\s@]+)(@)")


class Redactor:
    def __init__(self, secrets: Mapping[str, str]) -> None:
        """``secrets``: value → the variable's name (the name is shown instead of the value)."""
        self.secrets = sorted(secrets.items(), key=lambda kv: -len(kv[0]))  # longest first

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Redactor:
        from cairn.tools.shell.env import SecretFilter

        environ = os.environ if environ is None else environ
        extra = tuple(p.strip() for p in environ.get("CAIRN_SECRET_ENV", "").split(",") if p.strip())
        secret = SecretFilter(extra)
        found = {
            value: name
            for name, value in environ.items()
            if len(value) >= MIN_SECRET_CHARS and secret.is_secret(name, value)
        }
        return cls(found)

    def text(self, value: str) -> str:
        for secret, name in self.secrets:
            if secret in value:
                value = value.replace(secret, f"[redacted: ${name}]")
        return _PASSWORD_URL.sub(r"\1[redacted]\3", value)

    def apply(self, data: Any) -> Any:
        """A copy of ``data`` (dicts, lists, strings) with every string redacted."""
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, dict):
            return {self.apply(k) if isinstance(k, str) else k: self.apply(v) for k, v in data.items()}
        if isinstance(data, list | tuple):
            return [self.apply(v) for v in data]
        return data
