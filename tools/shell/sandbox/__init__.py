"""OS sandboxes for shell commands: bubblewrap first, Landlock as the fallback.

``SandboxSpec`` says what one command may see and touch; ``detect_backend()`` finds (once)
a backend that really confines a probe on this machine.  See docs/shell.md, "The sandbox".
"""

from cairn.tools.shell.sandbox.backend import Launch, Private, SandboxBackend
from cairn.tools.shell.sandbox.detect import BackendStatus, detect_backend, reset_cache
from cairn.tools.shell.sandbox.spec import OFF, PROFILES, READ_ONLY, WORKSPACE_WRITE, SandboxSpec

__all__ = [
    "OFF",
    "PROFILES",
    "READ_ONLY",
    "WORKSPACE_WRITE",
    "BackendStatus",
    "Launch",
    "Private",
    "SandboxBackend",
    "SandboxSpec",
    "detect_backend",
    "reset_cache",
]
