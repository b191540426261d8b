"""``null`` for an optional argument is "not given" (OpenAI strict mode, small models' text calls),
unless the argument's type takes ``None``; a required argument given ``null`` is still an error."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from cairn.tools.base import without_null_optionals
from cairn.tools.file_ops.read_file import ReadFileTool
from cairn.tools.services import ToolServices
from cairn.tools.workspace import Workspace


class Args(BaseModel):
    path: str
    offset: int = 1
    limit: int | None = 50


def test_null_optionals_are_dropped_unless_their_type_takes_none():
    given = {"path": "a.py", "offset": None, "limit": None, "other": None}
    assert without_null_optionals(Args, given) == {"path": "a.py", "limit": None, "other": None}
    assert without_null_optionals(Args, {"path": None}) == {"path": None}


def test_read_file_with_a_null_offset_reads_like_without_it(workspace):
    (Path(workspace) / "a.py").write_text("x = 1\ny = 2\n")
    ws = Workspace(workspace)
    tool = ReadFileTool(ws, ToolServices(ws))
    with_null = tool.execute({"file_path": "a.py", "offset": None, "limit": None})
    assert with_null.error is None, with_null.error
    assert with_null.output == tool.execute({"file_path": "a.py"}).output
    missing = tool.execute({"file_path": None})
    assert missing.error and "file_path" in missing.error
