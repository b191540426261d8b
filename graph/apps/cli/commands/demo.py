"""``cairn demo``: an offline tour with a scripted model in a temporary copy of a tiny project.

Phase 1 runs in a child process (``cairn demo --phase child``): it reads, searches, proposes
an edit (asks), runs the tests (asks).  While the tests run, this process SIGKILLs the child,
as a crash would.  Phase 2 resumes the session here with ``Session.resume``: the test call
that was cut off comes back ``interrupted`` and is offered as retry.  On a non-TTY every
question is answered yes and said so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.text import Text

from cairn.graph.apps.cli.exits import CTRL_C, DONE, ERROR
from cairn.graph.apps.cli.options import Options
from cairn.graph.apps.cli.tui.term import is_tty, make_console
from cairn.graph.core.events import Event, ToolStart

TASK = "The tests fail. Find out why and fix it."
#: Seconds the test command runs before the demo kills cairn (the slow test takes 2 s).
KILL_AFTER_S = 0.8
CHILD_TIMEOUT_S = 600


def demo_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "demo"


def python_first() -> dict[str, Any]:
    """The scripted test command says `python`: commands find this interpreter first, venv or not
    (a ``Settings`` override; cairn's own environment is left as it is)."""
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    return {"shell": {"env": {"PATH": path}}}


def run_demo(ns: Any, opts: Options) -> int:
    if ns.phase == "child":
        return _child(ns, opts)
    return _parent(ns, opts)


def _parent(ns: Any, opts: Options) -> int:
    """The tour in a temporary folder, removed at the end unless ``--keep``."""
    console = make_console()
    root = Path(tempfile.mkdtemp(prefix="cairn-demo-"))
    try:
        return _tour(ns, opts, console, root)
    finally:
        if not ns.keep:
            shutil.rmtree(root, ignore_errors=True)
            _say(console, "", "the demo's temporary folder was removed (cairn demo --keep keeps it)")


def _tour(ns: Any, opts: Options, console: Any, root: Path) -> int:
    auto = not (is_tty(sys.stdin) and is_tty(sys.stdout))
    workspace, db, marker = root / "tinystats", root / "cairn.db", root / "tests-running"
    shutil.copytree(demo_dir() / "project", workspace, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _say(console, "cairn demo", f"a scripted model (offline, no key) fixes a bug in {workspace}")
    if auto:
        _say(console, "", "not a TTY: every question is answered yes automatically")
    from cairn.graph.apps.cli.tui.warmup import Background, warm_imports

    warm = Background(lambda: warm_imports("script:"))  # phase 2 starts without the import wait
    cmd = [sys.executable, "-m", "cairn.graph.apps.cli", "demo", "--phase", "child", "--db", str(db)]
    cmd += ["--workspace", str(workspace), "--marker", str(marker)] + (["--auto"] if auto else [])
    child = subprocess.Popen(cmd)
    try:
        killed = _kill_when_tests_run(child, marker)
    except KeyboardInterrupt:
        child.kill()
        child.wait()
        return CTRL_C
    if not killed and child.returncode == 0:  # the person declined the test run: nothing to kill
        _say(console, "demo", "the tests were not run, so the crash-and-resume part was skipped", "yellow")
        return DONE
    if not killed:
        _say(console, "demo", f"the first phase ended early (exit {child.returncode})", "red")
        return ERROR
    if is_tty(sys.stdout):
        sys.stdout.write("\033[?25h\n")  # the killed process may have left the cursor hidden
    _say(
        console, "✂ killed", "cairn was SIGKILLed while the tests were running — as a crash would", "bold red"
    )
    _say(
        console,
        "resume",
        "a new process opens the session from the database: nothing is lost, nothing re-runs",
    )
    warm.result()
    return _resume_phase(marker.read_text().strip(), db, workspace, opts, auto, console, keep=ns.keep)


def _kill_when_tests_run(child: subprocess.Popen, marker: Path) -> bool:
    deadline = time.monotonic() + CHILD_TIMEOUT_S
    while time.monotonic() < deadline:
        if child.poll() is not None:
            return False
        if marker.exists() and marker.read_text().strip():
            time.sleep(KILL_AFTER_S)
            child.kill()
            child.wait()
            return True
        time.sleep(0.05)
    child.kill()
    child.wait()
    return False


def _resume_phase(
    sid: str, db: Path, workspace: Path, opts: Options, auto: bool, console: Any, *, keep: bool
) -> int:
    from cairn.graph.apps.cli.tui.interactive import Interactive
    from cairn.graph.apps.cli.tui.resume_interactive import where
    from cairn.graph.session.session import Session

    session = Session.resume(sid, db=str(db), overrides=python_first())
    demo_opts = Options(db=str(db), verbose=opts.verbose, explicit=("--db", str(db)))
    ui = Interactive(demo_opts, session=session, spec="script (demo)")
    ui.approver.auto = auto
    where(ui, session)
    try:
        result = ui.driver().continue_()
    except EOFError:
        return ui.goodbye()
    ok = result.status == "done"
    _say(console, "done" if ok else result.status, f"session {session.id[:12]} · workspace {workspace}")
    if keep:
        console.print(
            Text(f"  see it all: cairn show {session.id[:12]} --db {db}", style="dim"), soft_wrap=True
        )
    session.close()
    return DONE if ok else ERROR


def _child(ns: Any, opts: Options) -> int:
    from cairn.graph.apps.cli.tui.interactive import Interactive
    from cairn.graph.session.session import Session

    session = Session(
        opts.workspace_root(),
        model="script:" + str(demo_dir() / "script.json"),
        db=opts.db,
        mode="default",
        overrides=python_first(),
    )
    ui = Interactive(opts, session=session, spec="script (demo)")
    ui.approver.auto = bool(ns.auto)
    render = ui.renderer.on_event
    marker = Path(ns.marker)

    def on_event(event: Event) -> None:
        render(event)
        if isinstance(event, ToolStart) and event.call["tool_name"] == "bash":
            if not ui.renderer.tty:  # (a TTY shows the running command live)
                ui.renderer.note(f"  ● running {event.call['arguments'].get('command')} …")
            marker.write_text(session.id)  # the parent kills us now

    ui.renderer.on_event = on_event  # type: ignore[method-assign]
    ui.console.print(Text(f"\nyou › {TASK}", style="bold cyan"))
    try:
        ui.driver().send(TASK)
    except EOFError:
        return ui.goodbye()
    session.close()
    return DONE


def _say(console: Any, label: str, text: str, style: str = "bold magenta") -> None:
    line = Text()
    if label:
        line.append(f"{label} ", style=style)
    line.append(text, style="dim" if label else "dim italic")
    console.print(line, soft_wrap=True)
