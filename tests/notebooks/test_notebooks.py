"""Execute every example notebook in a real kernel (nbclient + ipykernel), and resume a session
across a kernel restart."""

from __future__ import annotations

import re
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbclient.util import run_sync

from tests.notebooks.strip import is_stripped

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
EXPECTED = [
    "01_quickstart.ipynb",
    "02_approvals_and_modes.ipynb",
    "03_resume_after_interruption.ipynb",
    "04_custom_tools_and_policy.ipynb",
]
#: Text each notebook's outputs must contain: proof that the cells did what the prose says.
MUST_SHOW = {
    "01_quickstart.ipynb": ["cairn-done", "cairn-success", "division by zero", 'src="data:image/png;base64,'],
    "02_approvals_and_modes.ipynb": [
        "waiting for your approval",
        "edited the arguments",
        "edit_file(calc.py)",
        "plan mode",
    ],
    "03_resume_after_interruption.ipynb": [
        "cairn-interrupted",
        "True interrupted",
        "job finished",
        "cairn-cancelled",
    ],
    "04_custom_tools_and_policy.ipynb": ["word_count", "deploy", "deny", "cairn-denied", "cairn-rejected"],
}


#: The temporary folder each notebook makes (and removes in its last cell).
TEMP_PREFIX = {
    "01_quickstart.ipynb": "cairn-quickstart-",
    "02_approvals_and_modes.ipynb": "cairn-approvals-",
    "03_resume_after_interruption.ipynb": "cairn-resume-",
    "04_custom_tools_and_policy.ipynb": "cairn-policy-",
}


def _temp_dirs(path: Path) -> list[Path]:
    return list(Path(tempfile.gettempdir()).glob(TEMP_PREFIX[path.name] + "*"))


@pytest.fixture(autouse=True)
def _this_venvs_kernelspec(monkeypatch):
    """Look up the ``python3`` kernelspec in this interpreter's prefix first: a user-level
    kernelspec (~/.local/share/jupyter) would otherwise win and could start another Python.
    jupyter_client replaces the spec's ``python`` with ``sys.executable``."""
    shared = Path(sys.prefix) / "share" / "jupyter"
    if (shared / "kernels" / "python3").is_dir():
        monkeypatch.setenv("JUPYTER_PATH", str(shared))


def kernel_client(nb: nbformat.NotebookNode, cwd: Path) -> NotebookClient:
    return NotebookClient(
        nb, kernel_name="python3", timeout=120, startup_timeout=60, resources={"metadata": {"path": str(cwd)}}
    )


def outputs_text(nb: nbformat.NotebookNode) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.extend(str(v) for v in out.get("data", {}).values())
    return "\n".join(parts)


def test_the_four_notebooks_exist():
    assert [p.name for p in NOTEBOOKS] == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebooks_have_no_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert is_stripped(nb), f"run: python tests/notebooks/strip.py {path.relative_to(ROOT)}"


def test_strip_clears_outputs_and_check_reports_them(tmp_path):
    from tests.notebooks import strip

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("1 + 1", execution_count=3)
    cell.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=3)]
    cell.metadata["execution"] = {"iopub.status.busy": "2026-01-01T00:00:00Z"}
    nb.cells = [cell, nbformat.v4.new_markdown_cell("# title")]
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    assert strip.main(["--check", str(path)]) == 1
    assert strip.main([str(path)]) == 0
    again = nbformat.read(path, as_version=4)
    assert (
        strip.is_stripped(again) and again.cells[0].source == "1 + 1" and again.cells[1].source == "# title"
    )
    assert strip.main(["--check", str(path)]) == 0


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_first_cell_says_how_to_use_a_real_model(path):
    first = nbformat.read(path, as_version=4).cells[0]
    assert first.cell_type == "markdown"
    assert "OPENAI_API_KEY" in first.source and "base_url=" in first.source


@pytest.mark.slow
def test_the_kernel_runs_this_python(tmp_path):
    """nbclient starts the ``python3`` kernelspec; it must be this venv's interpreter."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import sys, cairn; print(sys.executable); print(cairn.__file__)")]
    kernel_client(nb, tmp_path).execute()
    executable, package = nb.cells[0].outputs[0]["text"].split()
    assert Path(executable).resolve() == Path(sys.executable).resolve()
    assert Path(package).resolve() == (ROOT / "cairn" / "__init__.py").resolve()


@pytest.mark.slow
@pytest.mark.smoke
def test_a_notebook_in_a_folder_with_tools_py_and_graph_uses_cairn(tmp_path):
    """Jupyter puts the notebook's folder first on sys.path; a project's own ``tools.py``,
    ``graph/``, ``policy.py`` and ``checkpoints/`` (which raise when imported) must not matter.
    ``stream=True`` alone streams into the cell: ``from cairn import Session`` connected it."""
    from tests.test_packaging import make_shadowing_folder

    folder = make_shadowing_folder(tmp_path / "project")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "from cairn import Session\n"
            "s = Session('.', model='script:script.json', db=':memory:')\n"
            "r = s.send('read tools.py', stream=True)\n"
            "print('status', r.status, r.tool_calls[0].status)"
        ),
        nbformat.v4.new_code_cell("r"),
    ]
    kernel_client(nb, folder).execute()
    shown = outputs_text(nb)
    assert "status done success" in shown
    streamed = outputs_text(nbformat.from_dict({"cells": nb.cells[:1]}))
    assert "read_file" in streamed  # the tool line the cell stream showed (print() names no tool)
    assert "cairn-done" in shown  # the RunResult's HTML view


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom(path, tmp_path):
    # The example notebooks keep their sessions in a file of their own (DB = tmp / "cairn.db"),
    # as a person's first notebook would; the Session API they use runs on both backends in
    # the kernel tests below and in test_session_api.py.
    before = set(_temp_dirs(path))
    nb = nbformat.read(path, as_version=4)
    kernel_client(nb, tmp_path).execute()  # raises CellExecutionError on any cell error
    shown = outputs_text(nb)
    missing = [s for s in MUST_SHOW[path.name] if s not in shown]
    assert not missing, f"{path.name}: outputs lack {missing}"
    cells = re.findall(r"<td[^>]*>", shown)
    assert cells and all("text-align:left" in c for c in cells), f"{path.name}: a table cell is not left-aligned"
    if path.name == "01_quickstart.ipynb":  # the answer's Markdown is rendered in the HTML view
        answers = re.findall(r'class="cairn-answer"[^>]*>(.*?)</div>', shown, re.S)
        assert any("<h2>What it is</h2>" in a and "<strong>tiny calculator</strong>" in a for a in answers)
        assert any("<code>divide</code>" in a for a in answers) and not any("**" in a for a in answers)
    assert set(_temp_dirs(path)) <= before, "the notebook left its temporary folder behind"


BEFORE_RESTART = """
import json, tempfile
from pathlib import Path
from cairn import Session
tmp = Path({tmp!r})
ws = tmp / "ws"
ws.mkdir()
(ws / "calc.py").write_text("def add(a, b):\\n    return a - b\\n")
turns = [
    {{"tool_calls": [{{"name": "bash", "args": {{"command": "sed -i 's/a - b/a + b/' calc.py"}}}}]}},
    {{"content": "Fixed add."}},
]
(tmp / "script.json").write_text(json.dumps(turns))
s = Session(ws, model=f"script:{{tmp / 'script.json'}}", db={db!r})
r = s.send("fix add")
print("SESSION", s.id, r.status, [c.call_id for c in r.pending])
"""

AFTER_RESTART = """
assert "s" not in globals()  # a fresh kernel
from pathlib import Path
from cairn import Session
s = Session.resume({session_id!r}, db={db!r})
print("PENDING", [(c.tool_name, c.status) for c in s.pending()])
r = s.approve({call_id!r})
print("RESULT", r.status, r.text, Path({calc!r}).read_text().splitlines()[1].strip())
"""


@pytest.mark.slow
def test_resume_after_a_kernel_restart(tmp_path, db_location):
    """Stop at an approval, restart the kernel, ``Session.resume(id)`` and continue."""
    nb = nbformat.v4.new_notebook()
    client = kernel_client(nb, tmp_path)

    def run(source: str) -> str:
        nb.cells.append(nbformat.v4.new_code_cell(source))
        cell = client.execute_cell(nb.cells[-1], len(nb.cells) - 1)
        return "".join(o.get("text", "") for o in cell.outputs)

    with client.setup_kernel():
        out = run(BEFORE_RESTART.format(tmp=str(tmp_path), db=db_location))
        match = re.search(r"SESSION (\w+) awaiting_approval \['([^']+)'\]", out)
        assert match, out
        session_id, call_id = match.groups()
        run_sync(client.km.restart_kernel)(now=True)  # nbclient's managers are async
        run_sync(client.kc.wait_for_ready)(timeout=60)
        out = run(
            AFTER_RESTART.format(
                session_id=session_id[:10],  # a prefix is enough
                db=db_location,
                call_id=call_id,
                calc=str(tmp_path / "ws" / "calc.py"),
            )
        )
    assert "PENDING [('bash', 'awaiting_approval')]" in out
    assert "RESULT done Fixed add. return a + b" in out


INTERRUPT_SETUP = """
import json
from pathlib import Path
import psutil
import cairn.graph.apps.notebook
from cairn import Session
tmp = Path({tmp!r})
(tmp / "ws").mkdir()
turn = {{"tool_calls": [{{"name": "bash", "args": {{"command": "sleep 31.7"}}}}]}}
(tmp / "script.json").write_text(json.dumps([turn, "stopped", turn, "stopped again"]))
s = Session(tmp / "ws", model=f"script:{{tmp / 'script.json'}}", db={db!r},
            rules={{"allow": ["bash(sleep:*)"]}})
def sleeping():
    return [p.pid for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["sleep", "31.7"]]
"""


@pytest.mark.slow
def test_the_interrupt_button_in_a_kernel(tmp_path, db_location):
    """Jupyter's interrupt button (SIGINT to the kernel) during a command: without enable() the cell
    raises KeyboardInterrupt and continue_() recovers; with enable() the run pauses cleanly."""
    nb = nbformat.v4.new_notebook()
    client = kernel_client(nb, tmp_path)

    def run(source: str, *, interrupt_after: float | None = None) -> str:
        nb.cells.append(nbformat.v4.new_code_cell(source))
        timer = None
        if interrupt_after is not None:
            timer = threading.Timer(interrupt_after, run_sync(client.km.interrupt_kernel))
            timer.start()
        try:
            cell = client.execute_cell(nb.cells[-1], len(nb.cells) - 1)
        finally:
            if timer is not None:
                timer.join()
        return "".join(o.get("text", "") for o in cell.outputs)

    with client.setup_kernel():
        run(INTERRUPT_SETUP.format(tmp=str(tmp_path), db=db_location))
        with pytest.raises(CellExecutionError, match="KeyboardInterrupt"):
            run("r = s.send('go')", interrupt_after=2.0)
        out = run("r = s.continue_(); print(r.status, [c.status for c in r.pending], sleeping())")
        assert out.strip() == "interrupted ['interrupted'] []"
        run("r = s.cancel()")
        started = time.monotonic()
        out = run(
            "cairn.graph.apps.notebook.enable()\nr = s.send('again')\nprint(r.status, [c.status for c in r.pending], sleeping())",
            interrupt_after=2.0,
        )
        assert out.strip() == "interrupted ['interrupted'] []"
        assert time.monotonic() - started < 15


STREAM_SETUP = """
import json
from pathlib import Path
from cairn import Session
from cairn.graph.apps.notebook import default_event_sink, in_kernel
tmp = Path({tmp!r})
(tmp / "ws").mkdir()
(tmp / "ws" / "a.py").write_text("print(1)\\n")
turn = {{"tool_calls": [{{"name": "read_file", "args": {{"file_path": "a.py"}}}}]}}
(tmp / "script.json").write_text(json.dumps([turn, "It prints one.", turn, "Still one."]))
s = Session(tmp / "ws", model=f"script:{{tmp / 'script.json'}}", db={db!r})
print("IN KERNEL", in_kernel(), type(default_event_sink()).__name__)
"""


def run_in_kernel(tmp_path: Path, *sources: str) -> list[nbformat.NotebookNode]:
    """Execute ``sources`` as cells of one fresh kernel; return the executed cells."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    kernel_client(nb, tmp_path).execute()
    return nb.cells


def streamed(cell: nbformat.NotebookNode) -> list[str]:
    """The HTML of the display outputs a cell shows (display handles already updated in place)."""
    return [o["data"].get("text/html", "") for o in cell.outputs if o["output_type"] == "display_data"]


@pytest.mark.slow
def test_default_event_sink_streams_into_a_real_kernel_cell(tmp_path, db_location):
    setup, cell = run_in_kernel(
        tmp_path,
        STREAM_SETUP.format(tmp=str(tmp_path), db=db_location),
        "r = s.send('what does a.py do?', stream=True, on_event=default_event_sink())",
    )
    assert setup.outputs[0]["text"].strip() == "IN KERNEL True CellStream"
    shown = streamed(cell)
    assert any("cairn-success" in html and "read_file" in html for html in shown), shown
    assert any("It prints one." in html for html in shown), shown


@pytest.mark.slow
def test_stream_true_alone_streams_into_a_real_kernel_cell(tmp_path, db_location):
    """Issue 7: ``session.send(..., stream=True)`` shows tokens and tool calls in the cell, no setup."""
    setup = STREAM_SETUP.format(tmp=str(tmp_path), db=db_location)
    _, cell = run_in_kernel(tmp_path, setup, "r = s.send('hi', stream=True)")
    shown = streamed(cell)
    assert any("cairn-success" in html and "read_file" in html for html in shown), shown
