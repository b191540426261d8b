"""What a run returns to scripts, notebooks and the CLI."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from cairn.graph.core.state import ToolCallInfo

#: The keys ``usage`` always has in JSON output (docs/cli.md), zero when nothing ran.
USAGE_KEYS = ("input_tokens", "output_tokens", "model_calls", "cost")  # cost: issue 34

RunStatus = Literal[
    "done",
    "awaiting_approval",
    "interrupted",
    "error",
    "max_steps",
    "loop",
    "incomplete",
    "no_answer",
    "budget",  # issue 34: the run's money budget is spent (resumable)
]


class RunResult(BaseModel):
    """The outcome of ``send``/``continue_``/a decision: where the session stands now."""

    session_id: str
    status: RunStatus
    #: The final assistant text of this run ("" if it paused before answering).
    text: str = ""
    #: Calls waiting for a person (awaiting_approval or interrupted).
    pending: list[ToolCallInfo] = Field(default_factory=list)
    #: Calls that finished during this run, in the model's order.
    tool_calls: list[ToolCallInfo] = Field(default_factory=list)
    #: Usage of this run: input_tokens, output_tokens, model_calls, cost (US dollars, sub-agents
    #: included; None when no model has a price) and price_unknown (models without a price).
    usage: dict[str, Any] = Field(default_factory=dict)
    #: What went wrong when status is "error" (the session stays resumable).
    error: str | None = None
    elapsed_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "status": self.status,
            "result": self.text,
            "pending": [c.model_dump(mode="json", exclude={"metadata"}) for c in self.pending],
            "tool_calls": [c.model_dump(mode="json", exclude={"metadata"}) for c in self.tool_calls],
            "usage": {**dict.fromkeys(USAGE_KEYS, 0), **self.usage},
            "error": self.error,
            "elapsed_s": round(self.elapsed_s, 3),
        }

    def __repr__(self) -> str:
        from cairn.graph.display import run_result_text

        return run_result_text(self)

    def _repr_markdown_(self) -> str:  # notebooks; richer HTML lives in cairn.graph.display
        from cairn.graph.display import run_result_markdown

        return run_result_markdown(self)

    def _repr_html_(self) -> str:
        from cairn.graph.display import run_result_html

        return run_result_html(self)
