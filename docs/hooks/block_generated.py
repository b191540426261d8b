#!/usr/bin/env python3
"""PreToolUse hook: refuse edits under generated/ (the files a code generator owns).

[[hooks.PreToolUse]]
matcher = "Edit|Write"
command = "python3 .cairn/hooks/block_generated.py"
"""

import json
import os
import sys

event = json.load(sys.stdin)
path = event.get("tool_input", {}).get("file_path", "")
relative = os.path.relpath(os.path.join(event["cwd"], path), event["cwd"])
if relative == "generated" or relative.startswith("generated" + os.sep):
    print(f"{relative} is generated code: change the generator's input instead", file=sys.stderr)
    sys.exit(2)  # blocked; stderr is what the model reads
