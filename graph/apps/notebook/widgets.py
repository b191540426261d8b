"""Approval buttons for notebooks (ipywidgets, optional).

``approval_widget(session)`` shows every gated call with its reason and diff preview and the
buttons a person needs: approve / always / reject (with feedback) / edit the arguments, or
retry / cancel for an interrupted call. Each click is one ``session.decide({call_id: ...})``;
once every call is decided the run continues and streams into the widget's output area.
Without ipywidgets it returns the same approval view with a note saying how to decide in code.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cairn.graph.apps.notebook.stream import CellStream
from cairn.graph.display import PendingView
from cairn.graph.display.parts import approval_html, esc

if TYPE_CHECKING:
    from cairn.graph.core.state import ToolCallInfo
    from cairn.graph.session.session import Session

NO_WIDGETS = (
    "ipywidgets is not installed, so there are no buttons: decide in code with session.approve(id), "
    'session.reject(id, "why"), session.edit(id, {...}) or session.decide({...}) '
    "(pip install ipywidgets for buttons)."
)


def approval_widget(session: Session, *, stream: bool = True) -> Any:
    """Buttons for the session's gated calls (an ipywidgets VBox), or a ``PendingView`` with a note."""
    calls = session.pending()
    try:
        import ipywidgets
    except ImportError:
        return PendingView(calls, NO_WIDGETS)
    if not calls:
        return PendingView([])
    return with_static_view(ApprovalPanel(session, calls, ipywidgets, stream=stream).widget, calls)


STATIC_NOTE = (
    "The approval buttons need a running kernel; this is the request as it stood when shown. "
    'Decide in code: session.approve(id), session.reject(id, "why"), session.edit(id, {...}).'
)


def with_static_view(widget: Any, calls: list[ToolCallInfo]) -> Any:
    """``widget`` whose display also carries a static ``text/html`` view of ``calls``.

    A live frontend shows the buttons (the widget view outranks HTML); a notebook exported to
    HTML or viewed without the kernel (nbconvert, GitHub) has no widget state and would show
    nothing, and shows this approval view instead.
    """
    static = PendingView(calls, STATIC_NOTE)._repr_html_()
    live = getattr(widget, "_repr_mimebundle_", None)

    def bundle(include: Any = None, exclude: Any = None, **kwargs: Any) -> Any:
        found = live(include=include, exclude=exclude, **kwargs) if callable(live) else None
        data, metadata = found if isinstance(found, tuple) else (found or {}, None)
        data = {**data, "text/html": static}
        data.setdefault("text/plain", f"{len(calls)} call(s) waiting for a decision")
        return (data, metadata) if metadata is not None else data

    widget._repr_mimebundle_ = bundle
    return widget


class ApprovalPanel:
    """One row of buttons per gated call, plus an output area for the continued run."""

    def __init__(self, session: Session, calls: list[ToolCallInfo], widgets: Any, *, stream: bool) -> None:
        self.session, self.w, self.stream = session, widgets, stream
        self.undecided = {c.call_id for c in calls}
        self.out = widgets.Output()
        self.widget = widgets.VBox([*(self._row(c) for c in calls), self.out])

    def _row(self, call: ToolCallInfo) -> Any:
        w = self.w
        status = w.HTML(value="")
        inputs: list[Any] = []
        if call.status == "interrupted":
            choices: list[tuple[str, str, Callable[[], Any]]] = [
                ("Retry", "warning", lambda: "retry"),
                ("Cancel", "", lambda: "cancel"),
            ]
        else:
            feedback = w.Text(placeholder="feedback for the model (used by Reject)")
            args = w.Textarea(
                value=json.dumps(call.arguments, indent=2, ensure_ascii=False),
                layout=w.Layout(width="100%", height="8em"),
            )
            inputs = [feedback, args]
            choices = [
                ("Approve", "success", lambda: "approve"),
                *(
                    [("Approve without sandbox", "warning", lambda: {"action": "approve", "sandbox": "off"})]
                    if call.sandbox not in (None, "off")
                    else []
                ),
                *(
                    [
                        (
                            f"Approve with network to {', '.join(call.network_offer)}",
                            "success",
                            lambda: {"action": "approve", "network": list(call.network_offer or ())},
                        )
                    ]
                    if call.sandbox not in (None, "off") and call.network_offer
                    else []
                ),
                ("Always allow", "info", lambda: "always"),
                ("Reject", "danger", lambda: {"reject": feedback.value}),
                ("Edit and run", "warning", lambda: {"edit": json.loads(args.value)}),
            ]
        buttons = [w.Button(description=label, button_style=style) for label, style, _ in choices]
        controls = [*buttons, *inputs]
        for button, (label, _, make) in zip(buttons, choices, strict=True):
            button.on_click(self._handler(call, label, make, controls, status))
        return w.VBox([w.HTML(value=approval_html(call)), *inputs, w.HBox(buttons), status])

    def _handler(
        self, call: ToolCallInfo, label: str, make: Callable[[], Any], controls: list[Any], status: Any
    ) -> Callable[[Any], None]:
        def on_click(_button: Any) -> None:
            self.decide(call, label, make, controls, status)

        return on_click

    def decide(
        self, call: ToolCallInfo, label: str, make: Callable[[], Any], controls: list[Any], status: Any
    ) -> None:
        try:
            decision = make()
        except ValueError as exc:  # the edited arguments are not JSON
            status.value = f'<span style="color:#991b1b">arguments are not valid JSON: {esc(exc)}</span>'
            return
        with self.out:
            try:
                result = self.session.decide(
                    {call.call_id: decision},
                    stream=self.stream,
                    on_event=CellStream() if self.stream else None,
                )
            except Exception as exc:  # DecisionError (bad edit), SessionError (decided elsewhere)
                status.value = f'<span style="color:#991b1b">{esc(exc)}</span>'
                return
            for control in controls:
                control.disabled = True
            self.undecided.discard(call.call_id)
            waiting = f" (waiting for {len(self.undecided)} more)" if self.undecided else ""
            status.value = f"<i>{esc(label)}{esc(waiting)}</i>"
            if not self.undecided:
                from IPython.display import display

                display(result)
                if result.pending:
                    display(approval_widget(self.session, stream=self.stream))
