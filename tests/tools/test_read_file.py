"""read_file: numbered lines, limits, binary/empty/dir/image/PDF handling, read tracking."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path

import pytest
from PIL import Image

from cairn.tools.file_ops.read_file import MAX_WHOLE_FILE, ReadFileTool
from cairn.tools.services import ToolServices
from cairn.tools.workspace import Workspace


@pytest.fixture
def tool(workspace):
    ws = Workspace(workspace)
    return ReadFileTool(ws, ToolServices(ws))


def write(root, rel, data: bytes | str) -> Path:
    path = Path(root) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def test_numbered_lines_and_read_is_recorded(tool, workspace):
    path = write(workspace, "src/a.py", "import os\n\ndef f():\n    return 1\n")
    result = tool.execute({"file_path": "src/a.py"})
    assert result.ok
    assert result.output == "     1\timport os\n     2\t\n     3\tdef f():\n     4\t    return 1"
    assert result.display == "Read src/a.py (lines 1-4 of 4)"
    assert tool.services.reads.get(path) is not None
    assert tool.services.reads.stale_reason(path) is None


def test_offset_limit_and_remaining_note(tool, workspace):
    write(workspace, "n.txt", "".join(f"line {i}\n" for i in range(1, 101)))
    result = tool.execute({"file_path": "n.txt", "offset": 10, "limit": 5})
    rows = result.output.splitlines()
    assert rows[:5] == [f"{i:>6}\tline {i}" for i in range(10, 15)]
    assert "86 more lines not shown (100 lines in total)" in result.output
    assert "offset=15" in result.output
    # offset 0 and 1 both mean the beginning
    assert tool.execute({"file_path": "n.txt", "offset": 0, "limit": 1}).output.startswith("     1\tline 1")
    assert tool.execute({"file_path": "n.txt", "offset": 1, "limit": 1}).output.startswith("     1\tline 1")


def test_offset_past_end_is_an_error(tool, workspace):
    write(workspace, "short.txt", "a\nb\n")
    result = tool.execute({"file_path": "short.txt", "offset": 5})
    assert not result.ok
    assert "past the end" in result.error and "2 lines" in result.error


def test_long_lines_are_cut_with_marker(tool, workspace):
    write(workspace, "long.txt", "x" * 5000 + "\nshort\n")
    out = tool.execute({"file_path": "long.txt"}).output
    first, second = out.splitlines()
    assert first.startswith("     1\t" + "x" * 2000 + "...")
    assert "5,000 characters in total" in first
    assert second == "     2\tshort"


def test_output_budget_stops_at_a_line_boundary(tool, workspace):
    write(workspace, "wide.txt", "".join("y" * 1000 + "\n" for _ in range(500)))
    out = tool.execute({"file_path": "wide.txt"}).output
    assert len(out) <= ReadFileTool.max_output_chars
    last_row = [r for r in out.splitlines() if r[:6].strip().isdigit()][-1]
    shown = int(last_row.split("\t")[0])
    assert shown < 500
    assert f"offset={shown + 1}" in out


def test_missing_file_suggests_similar_names(tool, workspace):
    write(workspace, "src/config.py", "x = 1\n")
    result = tool.execute({"file_path": "src/confg.py"})
    assert not result.ok
    assert "File not found" in result.error and "config.py" in result.error


def test_directory_points_to_ls(tool, workspace):
    (Path(workspace) / "pkg").mkdir()
    result = tool.execute({"file_path": "pkg"})
    assert not result.ok and "directory" in result.error and "ls" in result.error


def test_empty_file(tool, workspace):
    path = write(workspace, "empty.txt", b"")
    result = tool.execute({"file_path": "empty.txt"})
    assert result.ok and "exists but is empty" in result.output
    assert tool.services.reads.get(path) is not None


def test_binary_file_by_nul_and_by_magic(tool, workspace):
    write(workspace, "blob.bin", b"abc\x00\x01\x02" * 10)
    write(workspace, "prog", b"\x7fELF\x02\x01\x01" + b"\x00" * 50)
    blob = tool.execute({"file_path": "blob.bin"})
    elf = tool.execute({"file_path": "prog"})
    assert blob.ok and "binary file" in blob.output and "\x00" not in blob.output
    assert "ELF executable" in elf.output
    assert tool.services.reads.get(Path(workspace) / "blob.bin") is None


def test_utf16_with_bom_is_text(tool, workspace):
    write(workspace, "u16.txt", "héllo\r\nwörld\r\n".encode("utf-16"))
    result = tool.execute({"file_path": "u16.txt"})
    assert result.output.splitlines()[:2] == ["     1\théllo", "     2\twörld"]
    assert "utf-16-le with BOM, CRLF" in result.output


def test_latin1_file_is_decoded(tool, workspace):
    write(workspace, "legacy.txt", "café\n".encode("cp1252"))
    assert tool.execute({"file_path": "legacy.txt"}).output.startswith("     1\tcafé")


def test_pdf_gets_type_and_size_note(tool, workspace):
    pdf = b"%PDF-1.4\n1 0 obj << /Type /Page >> endobj\n2 0 obj << /Type /Pages >> endobj\n%%EOF\n"
    write(workspace, "doc.pdf", pdf)
    result = tool.execute({"file_path": "doc.pdf"})
    assert result.ok and "PDF document" in result.output and "1 page" in result.output


def test_big_file_needs_offset_and_limit(tool, workspace):
    line = b"0123456789" * 9 + b"\n"
    path = write(workspace, "big.log", line * (MAX_WHOLE_FILE // len(line) + 10))
    refused = tool.execute({"file_path": "big.log"})
    assert not refused.ok and "offset" in refused.error and "limit" in refused.error
    part = tool.execute({"file_path": "big.log", "offset": 3, "limit": 2})
    assert part.ok
    text = line.decode().strip()
    assert part.output.splitlines()[:2] == [f"     3\t{text}", f"     4\t{text}"]
    assert "offset=5" in part.output
    assert tool.services.reads.get(path) is not None


def _png(size, color=(255, 0, 0), exif_orientation=None) -> bytes:
    img = Image.new("RGB", size, color)
    buf = io.BytesIO()
    if exif_orientation:
        exif = Image.Exif()
        exif[0x0112] = exif_orientation
        img.save(buf, format="JPEG", exif=exif.tobytes())
    else:
        img.save(buf, format="PNG")
    return buf.getvalue()


def test_image_is_returned_as_content_blocks(tool, workspace):
    write(workspace, "img/a.png", _png((80, 60)))
    result = tool.execute({"file_path": "img/a.png"})
    assert result.ok
    text, image = result.output
    assert text == {"type": "text", "text": "Image: img/a.png (PNG, 80x60, " + text["text"].split(", ")[-1]}
    assert image["type"] == "image_url"
    assert image["image_url"]["url"].startswith("data:image/png;base64,")
    meta = result.metadata["image"]
    assert (meta["mime_type"], meta["width"], meta["height"]) == ("image/png", 80, 60)
    assert base64.b64decode(meta["base64"]).startswith(b"\x89PNG")


def test_large_image_is_downscaled(tool, workspace):
    write(workspace, "big.png", _png((4000, 1000)))
    meta = tool.execute({"file_path": "big.png"}).metadata["image"]
    assert (meta["width"], meta["height"]) == (1568, 392)
    decoded = Image.open(io.BytesIO(base64.b64decode(meta["base64"])))
    assert decoded.size == (1568, 392)


def test_exif_orientation_is_applied(tool, workspace):
    # Orientation 6 = rotate 90° clockwise for display: a 200x100 sensor image is shown 100x200.
    write(workspace, "photo.jpg", _png((200, 100), exif_orientation=6))
    result = tool.execute({"file_path": "photo.jpg"})
    meta = result.metadata["image"]
    assert (meta["width"], meta["height"]) == (100, 200)
    assert meta["mime_type"] == "image/jpeg"


def test_bmp_is_converted_for_the_model(tool, workspace):
    buf = io.BytesIO()
    Image.new("RGB", (10, 10), (0, 0, 255)).save(buf, format="BMP")
    write(workspace, "x.bmp", buf.getvalue())
    meta = tool.execute({"file_path": "x.bmp"}).metadata["image"]
    assert meta["mime_type"] == "image/png"


def test_broken_image_is_a_clear_error(tool, workspace):
    write(workspace, "bad.png", b"\x89PNG\r\n\x1a\n" + b"garbage" * 10)
    result = tool.execute({"file_path": "bad.png"})
    assert not result.ok and "could not be decoded" in result.error


def test_symlink_is_followed_and_path_outside_is_readable(tool, workspace, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    os.symlink(outside, Path(workspace) / "link.txt")
    # The tool reads real paths; the policy engine (not the tool) decides about outside paths.
    assert tool.execute({"file_path": "link.txt"}).output == "     1\tsecret"


def test_alias_and_schema():
    assert "Read" in ReadFileTool.aliases and ReadFileTool.read_only and ReadFileTool.idempotent
    schema = ReadFileTool.args_schema.model_json_schema()
    assert all("description" in p for p in schema["properties"].values())


@pytest.mark.parametrize("codec", ["utf-32-le", "utf-32-be", "utf-16-be"])
def test_utf32_and_utf16be_with_bom_are_text(tool, workspace, codec):
    write(workspace, "u.txt", "\ufeffhéllo\n".encode(codec))
    result = tool.execute({"file_path": "u.txt"})
    assert result.ok, result.error
    assert result.output.splitlines()[0] == "     1\théllo"
    assert f"{codec} with BOM" in result.output


def test_invalid_bytes_in_a_utf8_file_are_shown_as_replacement_characters(tool, workspace):
    write(workspace, "mixed.txt", b"caf\xc3\xa9 ok\nbad \xff byte\n")
    result = tool.execute({"file_path": "mixed.txt"})
    assert result.output.splitlines()[:2] == ["     1\tcafé ok", "     2\tbad \ufffd byte"]
    assert "[File encoding: utf-8, 1 invalid byte shown as \ufffd; edits keep it.]" in result.output


def test_utf16_that_does_not_decode_is_shown_and_marked_not_editable(tool, workspace):
    write(workspace, "bad16.txt", "\ufeffline\n".encode("utf-16-le") + b"\x00\xd8")
    result = tool.execute({"file_path": "bad16.txt"})
    assert result.output.splitlines()[0] == "     1\tline"
    assert "[File encoding: utf-16-le with BOM, not valid utf-16-le: shown with \ufffd, not editable.]" in (
        result.output
    )


def test_image_with_too_many_pixels_is_refused_before_decoding(tool, workspace):
    buf = io.BytesIO()
    Image.new("1", (10000, 6000)).save(buf, format="PNG")  # 60 megapixels in 7 KB
    write(workspace, "bomb.png", buf.getvalue())
    result = tool.execute({"file_path": "bomb.png"})
    assert not result.ok
    assert "10000x6000" in result.error and "60.0 megapixels" in result.error and "50" in result.error


def test_big_jpeg_is_decoded_at_a_reduced_scale(tool, workspace):
    """JPEG draft mode decodes at 1/2..1/8 scale, so pixels over the limit are not all decoded."""
    buf = io.BytesIO()
    Image.new("L", (8000, 7500), 128).save(buf, format="JPEG")
    write(workspace, "huge.jpg", buf.getvalue())
    result = tool.execute({"file_path": "huge.jpg"})
    assert result.ok, result.error
    meta = result.metadata["image"]
    assert max(meta["width"], meta["height"]) == 1568
    assert "8000x7500, sent as 1568x1470" in result.output[0]["text"]


def test_exif_orientation_is_applied_to_a_downscaled_image(tool, workspace):
    write(workspace, "tall.jpg", _png((3200, 1600), exif_orientation=6))
    meta = tool.execute({"file_path": "tall.jpg"}).metadata["image"]
    assert (meta["width"], meta["height"]) == (784, 1568)


@pytest.fixture
def small_limits(monkeypatch):
    """Make "big file" mean 100 KB so the streaming path is cheap to test."""
    from cairn.tools.file_ops import read_file

    monkeypatch.setattr(read_file, "MAX_WHOLE_FILE", 100_000)
    monkeypatch.setattr(read_file, "MAX_TRACKED", 100_000)


def test_part_of_a_huge_single_line_file_is_read_in_bounded_memory(tool, workspace, small_limits):
    import tracemalloc

    size = 4_000_000
    write(workspace, "one.txt", b"abcdefghij" * (size // 10) + b"\nsecond line\n")
    tracemalloc.start()
    try:
        result = tool.execute({"file_path": "one.txt", "offset": 1, "limit": 2})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.ok, result.error
    first, second = result.output.splitlines()[:2]
    assert first.endswith(f"... [line cut: {size:,} characters in total]") and len(first) < 2100
    assert second == "     2\tsecond line"
    assert peak < size // 4, f"peak {peak:,} bytes for a {size:,}-byte line"


def test_part_of_a_big_utf16_file_is_decoded_line_by_line(tool, workspace, small_limits):
    body = "".join(f"línea {i}\r\n" for i in range(1, 20_001))
    write(workspace, "big16.txt", ("\ufeff" + body).encode("utf-16-le"))
    result = tool.execute({"file_path": "big16.txt", "offset": 9_999, "limit": 2})
    assert result.ok, result.error
    assert result.output.splitlines()[:2] == ["  9999\tlínea 9999", " 10000\tlínea 10000"]
    assert "offset=10001" in result.output
