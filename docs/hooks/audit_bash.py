#!/usr/bin/env python3
"""PreToolUse hook: an audit trail of every shell command the agent asks to run (one JSON line
each, with the session and time), before the policy's or a person's decision.

[[hooks.PreToolUse]]
matcher = "Bash"
command = "python3 ~/.config/cairn/hooks/audit_bash.py"
"""

import json
import os
import sys
import time

event = json.load(sys.stdin)
log = os.environ.get("CAIRN_AUDIT_LOG", os.path.expanduser("~/.cairn-audit.jsonl"))
entry = {
    "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "session": event["session_id"],
    "cwd": event["cwd"],
    "command": event["tool_input"].get("command"),
}
with open(log, "a", encoding="utf-8") as fh:
    fh.write(json.dumps(entry) + "\n")
