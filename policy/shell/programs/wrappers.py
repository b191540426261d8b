"""Wrappers: programs that run the command given after their options (and a fixed operand).

The wrapper itself is harmless; the command it runs is judged as its own unit, so a wrapper
runs unasked exactly when its command does.  Programs that run code given as a string (watch,
flock -c, su -c) say so in their rules; sudo and the other privilege wrappers always ask.
"""

from __future__ import annotations

from typing import Any

from cairn.policy.shell.programs.record import Program, program

__all__ = ["FAMILY", "RECORDS"]

FAMILY = "wrapper"


def _wrapper(name: str, allow: str, **kw: Any) -> Program:
    """A wrapper record; its examples show that the wrapped command decides."""
    return program(name, operands="command", allow=(allow,), ask=(f"{name} rm -rf src",), **kw)


#: sudo and friends always ask (HIGH); the command they run is judged as its own unit.
# fmt: off
_PRIVILEGED = (
    ("-e --edit", "privilege", "high", "edits files as root", "writes"),
    ("no-operands&-l no-operands&--list no-operands&-v no-operands&--validate no-operands&-k no-operands&-K "
        "no-operands&--reset-timestamp no-operands&--remove-timestamp", "privilege", "medium",
        "{opt} manages sudo credentials"),
    ("no-operands", "privilege", "high", "starts a root shell"),
    ("always", "privilege", "high", "runs {op} as another user (root)", "inner"),
)
# fmt: on


def _privileged(name: str, valued: str, *first: tuple[str, ...]) -> Program:
    """sudo and friends: the record states their arity so the command is found."""
    return program(
        name,
        operands="command",
        asks_valued=valued,
        asks_long_valued="""user group chdir host prompt role type close-from other-user
        command-timeout""",
        rules=(*first, *_PRIVILEGED),
        ask=(f"{name} ls",),
        deny=(f"{name} rm -rf /",),
    )


# fmt: off
RECORDS: tuple[Program, ...] = (
    _wrapper("caffeinate", "caffeinate -t 5 ls", valued="tw"),
    _wrapper("chrt", "chrt 0 ls", skip=1, skip_number=True),
    _wrapper("ionice", "ionice -c 3 ls", valued="cnp", long_valued="class classdata pid"),
    _wrapper("nice", "nice -n 10 ls", valued="n", long_valued="adjustment"),
    _wrapper("nohup", "nohup ls"),
    _wrapper("setsid", "setsid ls"),
    _wrapper("stdbuf", "stdbuf -o L ls", valued="ioe", long_valued="input output error"),
    _wrapper("taskset", "taskset 1 ls", skip=1),
    _wrapper("time", "command time -f %e ls", valued="fo", long_valued="format output",
        writes_with="-o --output"),
    _wrapper("timeout", "timeout 5 ls", valued="ks", long_valued="kill-after signal", skip=1),
    _wrapper("unbuffer", "unbuffer ls"),
    program("flock", operands="command", skip=1, valued="wEc",
        long_valued="wait timeout conflict-exit-code command", rules=(
            ("-c --command", "wrapper", "low", "runs a command line under a lock", "code-value reads-first"),
            ("always", "wrapper", "low", "runs a command under a lock", "inner reads-first")),
        allow=("flock .lock ls", "flock -c ls .lock"), ask=("flock .lock rm -r src", "flock -c 'rm -r src' .lock")),
    program("watch", operands="command", valued="nqd", long_valued="interval differences chgexit", rules=(
            ("-x --exec", "wrapper", "low", "runs {op} repeatedly", "inner"),
            ("no-operands", "neutral", "low", "with no command"),
            ("always", "wrapper", "low", "runs a command line repeatedly", "code-operands")),
        allow=("watch -n 5 ls", "watch -x ls src"), ask=("watch rm -r src", "watch 'ls; rm -r src'")),
    program("parallel", options_by_handler=True,
        rules=(("always", "general", "high", "runs command lines built from its input"),),
        ask=("parallel echo ::: a b",)),
    _privileged("sudo", "ugCDhpRrtTU"),
    _privileged("sudoedit", "ugCDhpRrtTU", ("always", "privilege", "high", "edits files as root", "writes")),
    *(_privileged(n, "uC") for n in ("doas", "pkexec", "run0")),
    program("su", asks_valued="cgGsw", asks_long_valued="command group shell whitelist-environment", rules=(
            ("-c --command", "privilege", "high", "runs commands as another user", "code-value"),
            ("always", "privilege", "high", "runs commands as another user")),
        ask=("su -c ls",), deny=("su -c 'rm -rf /'",)),
)
# fmt: on
