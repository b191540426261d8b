"""cairn.graph.apps.notebook.widgets: approval buttons (against a minimal stand-in for ipywidgets) and the
fallback without ipywidgets."""

from __future__ import annotations

import sys
import types

import pytest

from cairn.graph.apps.notebook import approval_widget
from cairn.graph.core.state import ToolCallInfo
from cairn.graph.display import PendingView
from cairn.graph.session.result import RunResult


class Widget:
    def __init__(self, children=(), **kw) -> None:
        self.children = list(children)
        self.disabled = False
        self.value = kw.pop("value", "")
        self.__dict__.update(kw)


class Button(Widget):
    def on_click(self, callback) -> None:
        self.callback = callback

    def click(self) -> None:
        self.callback(self)


class Output(Widget):
    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None


def fake_ipywidgets() -> types.ModuleType:
    mod = types.ModuleType("ipywidgets")
    for name in ("VBox", "HBox", "HTML", "Text", "Textarea", "Layout"):
        setattr(mod, name, type(name, (Widget,), {}))
    mod.Button, mod.Output = Button, Output
    return mod


class FakeSession:
    """pending()/decide() as cairn.graph.session.session.Session does them (decisions staged until all are in)."""

    def __init__(self, calls: list[ToolCallInfo]) -> None:
        self.calls, self.staged, self.runs = calls, {}, []

    def pending(self):
        return [c for c in self.calls if c.call_id not in self.staged]

    def decide(self, decisions, *, stream=False, on_event=None):
        from cairn.graph.session.decision_forms import DecisionError

        for cid, d in decisions.items():
            if isinstance(d, dict) and "edit" in d and "bad" in d["edit"].values():
                raise DecisionError("Invalid arguments for edit_file: bad")
            self.staged[cid] = d
        if len(self.staged) < len(self.calls):
            return RunResult(session_id="s", status="awaiting_approval", pending=self.calls)
        self.runs.append((dict(self.staged), stream, on_event))
        return RunResult(session_id="s", status="done", text="finished")


def rows(widget) -> list:
    return widget.children[:-1]


def row_parts(row):
    [html, *inputs, hbox, status] = row.children
    return html, inputs, {b.description: b for b in hbox.children}, status


@pytest.fixture
def widgets(monkeypatch):
    monkeypatch.setitem(sys.modules, "ipywidgets", fake_ipywidgets())


GATED = ToolCallInfo(
    call_id="e1",
    tool_name="edit_file",
    arguments={"path": "a.py"},
    status="awaiting_approval",
    risk="MEDIUM",
    reason="edits a file",
    preview="-a\n+b",
)
INTERRUPTED = ToolCallInfo(
    call_id="b1", tool_name="bash", arguments={"command": "sleep 9"}, status="interrupted"
)


def test_without_ipywidgets_it_degrades_to_the_approval_view_with_a_note(monkeypatch):
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import fails
    view = approval_widget(FakeSession([GATED]))
    assert isinstance(view, PendingView)
    html = view._repr_html_()
    assert "ipywidgets is not installed" in html and "edits a file" in html and "session.approve(" in html


def test_buttons_per_call_kind(widgets):
    panel = approval_widget(FakeSession([GATED, INTERRUPTED]))
    (_, inputs, gated_buttons, _), (_, none, interrupted_buttons, _) = map(row_parts, rows(panel))
    assert list(gated_buttons) == ["Approve", "Always allow", "Reject", "Edit and run"]
    assert list(interrupted_buttons) == ["Retry", "Cancel"] and none == []
    assert '"path": "a.py"' in inputs[1].value  # arguments prefilled for editing


def test_run_continues_once_every_call_is_decided(widgets):
    session = FakeSession([GATED, INTERRUPTED])
    panel = approval_widget(session, stream=False)
    (_, inputs, gated, status1), (_, _, interrupted, _) = map(row_parts, rows(panel))
    inputs[0].value = "use pathlib"
    gated["Reject"].click()
    assert session.runs == [] and "waiting for 1 more" in status1.value
    assert all(b.disabled for b in gated.values()) and not interrupted["Retry"].disabled
    interrupted["Cancel"].click()
    assert session.runs == [({"e1": {"reject": "use pathlib"}, "b1": "cancel"}, False, None)]


def test_edit_sends_the_parsed_arguments_and_reports_bad_json(widgets):
    session = FakeSession([GATED])
    _, inputs, buttons_, status = row_parts(rows(approval_widget(session))[0])
    inputs[1].value = "{not json"
    buttons_["Edit and run"].click()
    assert "not valid JSON" in status.value and session.runs == [] and not buttons_["Approve"].disabled
    inputs[1].value = '{"path": "bad"}'
    buttons_["Edit and run"].click()
    assert "Invalid arguments" in status.value and session.runs == []
    inputs[1].value = '{"path": "b.py"}'
    buttons_["Edit and run"].click()
    [(decisions, stream, on_event)] = session.runs
    assert decisions == {"e1": {"edit": {"path": "b.py"}}} and stream is True and callable(on_event)


def test_always_allow_and_retry(widgets):
    session = FakeSession([GATED, INTERRUPTED])
    (_, _, gated, _), (_, _, interrupted, _) = map(row_parts, rows(approval_widget(session)))
    gated["Always allow"].click()
    interrupted["Retry"].click()
    assert session.runs[0][0] == {"e1": "always", "b1": "retry"}


def test_a_package_manager_call_gets_an_approve_with_network_button(widgets):
    pip = ToolCallInfo(
        call_id="p1",
        tool_name="bash",
        arguments={"command": "pip install requests"},
        status="awaiting_approval",
        risk="HIGH",
        reason="installs packages",
        sandbox="workspace-write",
        network_offer=["pypi.org", "files.pythonhosted.org"],
    )
    session = FakeSession([pip])
    html, _, buttons_, _ = row_parts(rows(approval_widget(session))[0])
    label = "Approve with network to pypi.org, files.pythonhosted.org"
    assert list(buttons_)[:3] == ["Approve", "Approve without sandbox", label]
    assert "network offered:" in html.value and "pypi.org" in html.value
    buttons_[label].click()
    [(decisions, _, _)] = session.runs
    assert decisions == {"p1": {"action": "approve", "network": ["pypi.org", "files.pythonhosted.org"]}}
