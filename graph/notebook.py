"""``cairn.graph.notebook`` is now ``cairn.graph.apps.notebook``; this alias keeps old imports working."""

# relayout: alias (written by relayout.py, which leaves this file alone)
from cairn.graph.apps.notebook import *  # noqa: F403
from cairn.graph.apps.notebook import __all__  # noqa: F401
