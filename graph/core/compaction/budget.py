"""The context settings of one session: window, thresholds, budgets, where big outputs go.

Every number has an environment override so a deployment can tune it without code (read by
``cairn.graph.core.settings`` into ``Settings.context``; the Session passes the values set here):

==========================  ===============================  =======================
setting                     environment                      default
==========================  ===============================  =======================
window                      ``CAIRN_CONTEXT_WINDOW``         see ``windows.py``
threshold (compact at)      ``CAIRN_COMPACT_THRESHOLD``      0.8 of the window
elide_at (old outputs)      ``CAIRN_ELIDE_THRESHOLD``        0.6 of the window
keep_ratio (recent turns)   ``CAIRN_COMPACT_KEEP``           0.3 of the window
spill_bytes (big outputs)   ``CAIRN_TOOL_OUTPUT_LIMIT``      20,000 bytes
==========================  ===============================  =======================
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any


@dataclass
class ContextBudget:
    """What the reasoning and compaction steps need to keep every prompt inside the window."""

    window: int
    threshold: float = 0.8
    elide_at: float = 0.6
    keep_ratio: float = 0.3
    spill_bytes: int = 20_000
    #: Directory for whole big outputs (``None``: never spill).
    spill_dir: Path | None = None
    #: Model name, for the exact tokenizer (OpenAI names only).
    model_name: str | None = None
    #: Characters of the bound tool schemas (sent with every request).
    schema_chars: int = 0
    _encoding: Any = field(default=None, repr=False)

    @property
    def limit(self) -> int:
        """Prompt tokens above which cairn compacts before calling the model."""
        return int(self.window * self.threshold)

    @property
    def elide_limit(self) -> int:
        return int(self.window * min(self.elide_at, self.threshold))

    def adjusted(self, context: dict[str, Any]) -> ContextBudget:
        """This budget with the window the provider itself reported (a context_length_exceeded
        error names it), when that is smaller than what was configured."""
        learned = context.get("window")
        if isinstance(learned, int) and 0 < learned < self.window:
            return replace(self, window=learned)
        return self

    def keep_tokens(self, hard: bool = False) -> int:
        """Recent-turn budget kept verbatim; a hard compaction keeps half as much."""
        budget = int(self.window * self.keep_ratio)
        return budget // 2 if hard else budget
