#!/usr/bin/env python3
"""PostToolUse hook: run the formatter on a Python file the agent just edited or wrote.

[[hooks.PostToolUse]]
matcher = "Edit|Write"
command = "python3 .cairn/hooks/format_after_edit.py"
"""

import json
import os
import subprocess
import sys

event = json.load(sys.stdin)
path = os.path.join(event["cwd"], event.get("tool_input", {}).get("file_path", ""))
if event.get("tool_response", {}).get("status") != "success" or not path.endswith(".py"):
    sys.exit(0)
formatter = os.environ.get("FORMATTER", "ruff format --quiet").split()
done = subprocess.run([*formatter, path], capture_output=True, text=True)
if done.returncode != 0:  # the model hears about it, the edit stays
    print(f"the formatter failed on {path}: {done.stderr.strip()}", file=sys.stderr)
    sys.exit(2)
