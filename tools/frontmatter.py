"""YAML front matter (``---`` … ``---`` at the top of a Markdown file), as used by skills and commands."""

from __future__ import annotations

from typing import Any

__all__ = ["split_front_matter"]


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """``(metadata, body)``; a file without front matter (or with invalid YAML) has ``{}``.

    Invalid YAML is not an error here: the file still works, by its file name, and the caller
    shows what is missing.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.startswith("---"):
        return {}, text
    lines = text.splitlines(keepends=True)
    if lines[0].strip() != "---":
        return {}, text
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            head = "".join(lines[1:index])
            body = "".join(lines[index + 1 :])
            import yaml

            try:
                data = yaml.safe_load(head) or {}
            except yaml.YAMLError:
                return {}, body
            return (data if isinstance(data, dict) else {}), body
    return {}, text
