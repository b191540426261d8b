"""sed and awk: read-only unless the script writes files or runs commands."""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.options import split_args
from cairn.policy.shell.programs import known
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.shell.safeflags import value_options
from cairn.policy.shell.sedscript import scan_sed

__all__ = ["awk", "sed"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


#: Program text that loads other files or dumps the environment (API keys) asks.
_AWK_ASKS = re.compile(r"@include|@load|@namespace|\bENVIRON\b|\bPROCINFO\b")


def sed(name: str, args: list[str]) -> Classified:
    found = known(name)
    opts, files = split_args(args, *value_options(name), long_names=found.long_names, optional="i")
    given = {o for o, _ in opts}
    unknown = next((o for o in given if o.startswith("--") and o not in found.long_names), None)
    if unknown is not None:
        return _c("general", MEDIUM, f"sed {unknown} is not a sed option the policy knows")
    if given & {"-f", "--file"}:
        return _c("general", MEDIUM, "sed -f runs a script file the policy cannot read")
    scripts = [v or "" for o, v in opts if o in ("-e", "--expression")]
    in_place, sandbox = bool(given & {"-i", "--in-place"}), "--sandbox" in given
    if not scripts:
        if not files:
            return _c("neutral", LOW, "sed with no script")
        scripts, files = [files[0]], files[1:]
    script = scan_sed("\n".join(scripts))
    if script.executes and not sandbox:
        return _c("exec", HIGH, "the sed script uses e, which runs shell commands")
    if script.unknown and not sandbox:
        return _c("general", MEDIUM, "the sed script could not be read (it might write or run commands)")
    reads = files + script.reads
    if in_place or script.writes:
        writes = (files if in_place else []) + script.writes
        what = "edits files in place" if in_place else f"writes {', '.join(script.writes)}"
        return _c(
            "write",
            MEDIUM,
            f"sed {what}",
            reads=reads,
            writes=writes,
            auto_edit=in_place and not script.writes,
        )
    return _c("read", LOW, "sed only prints", reads=reads)


_AWK_DANGER = re.compile(
    r"\bsystem\s*\(|\|\s*getline|\|&|\bgetline\b|@load|\bclose\s*\(|\bfflush\s*\(|"
    r"\b(print|printf)\b[^;{}\n]*?(>|\|)"
)


def awk(name: str, args: list[str]) -> Classified:
    found = known(name)
    opts, operands = split_args(args, *value_options(name), long_names=found.long_names)
    safe = {o.name for o in found.options}
    unknown = next((o for o, _ in opts if o not in safe), None)
    if unknown is not None:
        return _c(
            "general",
            MEDIUM,
            f"{name} {unknown} is not an option the policy knows to be safe "
            "(program files, extensions, -W and output options run or write code)",
        )
    programs = [v or "" for o, v in opts if o == "--source"]
    if not programs:
        if not operands:
            return _c("neutral", LOW, f"{name} with no program")
        programs, operands = [operands[0]], operands[1:]
    for program in programs:
        m = _AWK_DANGER.search(program)
        if m:
            return _c(
                "exec",
                HIGH,
                f"the {name} program uses {m.group().strip()!r}, which can run commands or write files",
                reads=[
                    q for q in re.findall(r'"([^"\n]+)"', program) if "/" in q or q.startswith((".", "~"))
                ],
            )
        m = _AWK_ASKS.search(program)
        if m:
            return _c(
                "general",
                MEDIUM,
                f"the {name} program uses {m.group()}, which loads other files or prints the environment",
            )
    files = [o for o in operands if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", o)]
    return _c("read", LOW, f"{name} only prints", reads=files)
