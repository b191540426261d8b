"""Compaction's cut, over random transcripts: every invariant holds whatever the shape."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from cairn.graph.core.compaction import tokens
from cairn.graph.core.compaction.plan import invariant_problems, plan_cut, unit_starts
from cairn.graph.core.compaction.view import View, make_marker

unit_kinds = st.sampled_from(["person", "text", "calls", "calls_images"])


@st.composite
def transcripts(draw):
    """(body, protected call ids): units of a session, the last turn maybe still in flight."""
    body: list = []
    n = 0
    for kind in draw(st.lists(unit_kinds, min_size=1, max_size=25)):
        if kind == "person":
            body.append(HumanMessage("p" * draw(st.integers(1, 400))))
        elif kind == "text":
            body.append(AIMessage("a" * draw(st.integers(0, 400))))
        else:
            ids = [f"c{n + i}" for i in range(draw(st.integers(1, 3)))]
            n += len(ids)
            body.append(AIMessage("", tool_calls=[{"name": "read_file", "args": {}, "id": i} for i in ids]))
            for call_id in ids:
                body.append(
                    ToolMessage("x" * draw(st.integers(0, 3000)), tool_call_id=call_id, name="read_file")
                )
            if kind == "calls_images":
                body.append(HumanMessage(content=[{"type": "image_url", "image_url": {"url": "data:,"}}]))
    protected: set[str] = set()
    if draw(st.booleans()):  # the current turn is waiting: awaiting approval, pending or interrupted
        ids = [f"c{n + i}" for i in range(draw(st.integers(1, 3)))]
        body.append(AIMessage("", tool_calls=[{"name": "edit_file", "args": {}, "id": i} for i in ids]))
        answered = draw(st.integers(0, len(ids) - 1))  # allowed calls already ran
        for call_id in ids[:answered]:
            body.append(ToolMessage("ok", tool_call_id=call_id, name="edit_file"))
        protected = set(ids[answered:])
    for i, message in enumerate(body):
        message.id = f"m{i}"
    return body, protected


@settings(max_examples=300, deadline=None)
@given(transcripts(), st.integers(0, 6000))
def test_compaction_output_always_satisfies_the_invariants(case, keep):
    body, protected = case
    sizes = [tokens.estimate_message(m) for m in body]
    assert invariant_problems(body, protected) == []  # the generator makes valid sessions
    cut = plan_cut(body, sizes, keep, protected)
    if cut is None:
        return
    assert 0 < cut < len(body)
    assert cut in unit_starts(body)
    kept = body[cut:]
    marker = make_marker("summary", {"assistant_count": 1, "summarized": cut})
    sent = [SystemMessage("system"), *View(HumanMessage("first"), marker, kept).messages()]
    assert invariant_problems(sent, protected) == []
    # the latest turn and every in-flight call are kept verbatim
    assert body[unit_starts(body)[-1]] in kept
    kept_calls = {c["id"] for m in kept if isinstance(m, AIMessage) for c in m.tool_calls}
    assert protected <= kept_calls
    # kept as much as the budget allows: one more unit would not have fit (or is not allowed)
    earlier = [s for s in unit_starts(body) if s < cut]
    if earlier and sum(sizes[cut:]) <= keep:
        assert sum(sizes[earlier[-1] :]) > keep or any(
            c["id"] in protected
            for m in body[earlier[-1] : cut]
            if isinstance(m, AIMessage)
            for c in m.tool_calls
        )


def test_the_checker_sees_a_separated_tool_call():
    ai = AIMessage("", tool_calls=[{"name": "ls", "args": {}, "id": "a"}])
    answer = ToolMessage("out", tool_call_id="a")
    assert invariant_problems([ai, HumanMessage("x"), answer]) != []
    assert invariant_problems([answer]) == ["orphan tool message a"]
    assert invariant_problems([ai]) == ["unanswered calls ['a']"]
    assert invariant_problems([ai], {"a"}) == []
    assert invariant_problems([HumanMessage("x")], {"b"}) == ["protected calls dropped ['b']"]


def test_nothing_to_cut_in_a_single_turn():
    ai = AIMessage("", tool_calls=[{"name": "ls", "args": {}, "id": "a"}])
    body = [ai, ToolMessage("x" * 10_000, tool_call_id="a")]
    assert plan_cut(body, [5, 2500], 10) is None
