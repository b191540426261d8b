"""One program's record: what the shell classifier knows about it, stated once.

A record says which family the program belongs to (``reader``, ``lister``, ``search``, ``text``,
``archive``, ``vcs`` …), how the classifier treats its operands (``operands``: ``"read"`` when
they are files it reads, ``"list"`` when it lists them, ``"write"`` when it writes them,
``"command"`` when they are a command it runs), every option that runs without a person
with its arity (no value, a required value in the next word or after ``=``, or an optional
``=VALUE``), whether GNU long-option abbreviations are accepted (they are not: only exact names
are on the list, so an abbreviation asks), the environment variables that change what it runs or
loads, the handler that judges arguments embedding code, and example commands with the decision
each gets in the default mode (checked by ``tests/policy/test_programs.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from cairn.policy.vocab import words

__all__ = ["Option", "Program", "Rule", "plain", "program"]


@dataclass(frozen=True)
class Option:
    """One option that runs without asking: ``-n``, ``--lines`` and whether it takes a value."""

    name: str
    value: str = ""  # "" none, "required" (next word or =VALUE), "optional" (only =VALUE), "pair"

    @property
    def text(self) -> str:
        if self.value == "required":
            return f"{self.name}=VALUE" if self.name.startswith("--") else f"{self.name} VALUE"
        if self.value == "pair":
            return f"{self.name} NAME VALUE"
        if self.value == "optional":
            return f"{self.name}[=VALUE]"
        return self.name


@dataclass(frozen=True)
class Rule:
    """A verdict of the generic judge: the first rule of a record whose test holds decides.

    ``when`` is a list of tests, any of which holds: an option name (``-f``, ``--set``; given
    with the record's arity), ``always``, ``no-args``, ``operands``, ``no-operands``, ``+``
    (a word starting with ``+``), ``=`` (a word with ``=``), ``/`` (an operand with a
    slash), ``--first`` (the first word is ``--``), ``other`` (a word not in the record's
    ``accepts``).  ``says`` follows the program's name (``{op}``: the first operand, ``{opt}``:
    what matched, ``{out}``: the first file written); ``effect`` lists what the verdict implies:
    ``runs-first`` (the first operand is a script it runs), ``inner`` (the operands are a
    command it runs), ``cd``/``cd-unknown`` (it changes the directory), ``writes`` /
    ``writes-first`` (it writes its operands / the first), ``here`` (it writes ``.`` when no
    option names where), ``network``, ``deny`` (refused in every mode), ``code`` / ``code-first``
    (its words / its first word are shell code, judged as their own commands).
    """

    when: str
    category: str
    risk: str  # "low", "medium" or "high"
    says: str
    effect: str = ""


@dataclass(frozen=True)
class Program:
    """A program's record (see the module docstring)."""

    name: str
    category: str
    module: str
    operands: str = ""  # "read", "list", "write", "copy" (SOURCE... DEST), "command", or ""
    flags: str = ""  # short options without a value
    valued: str = ""  # short options taking a value
    long: frozenset[str] = frozenset()  # long options without a value (``--x=V`` is accepted too)
    long_valued: frozenset[str] = frozenset()  # long options taking a value
    long_pairs: frozenset[str] = frozenset()  # long options taking two words (jq --arg NAME VALUE)
    #: Options that always ask but whose value the handler must find (``sort -o FILE``,
    #: ``less --log-file=FILE``, ``rg --pre=CMD``): their arity, stated here and nowhere else.
    asks_valued: str = ""
    asks_long_valued: frozenset[str] = frozenset()
    asks_long: frozenset[str] = frozenset()  # known long options without a value that ask
    numeric: bool = False  # -20 (head -20)
    plus: bool = False  # +5 (tail +5)
    plus_text: bool = False  # +FORMAT (date +%F)
    abbreviations: bool = False  # GNU abbreviations are not resolved: an abbreviation asks
    env: tuple[str, ...] = ()  # variables that change what it runs or loads
    handler: str = ""  # module.function judging arguments that embed code
    #: For the generic judge (:mod:`cairn.policy.shell.judge`), programs without a handler:
    kind: str = ""  # the category when it only reads ("read", "list", "search"; default operands)
    says: str = "only reads"  # the reason then, after the program's name
    reads_with: frozenset[str] = frozenset()  # options whose value is a file it reads
    writes_with: frozenset[str] = frozenset()  # options whose value is a file it writes
    runs_with: frozenset[str] = frozenset()  # options whose value is a program it runs
    decodes_with: frozenset[str] = frozenset()  # options that make stdout decoded data
    decodes: bool = False  # stdout is always transformed data (rev, tr)
    writes_second: bool = False  # ``uniq IN OUT``: a second file operand is written
    pattern_with: frozenset[str] | None = None  # set: the first operand is a pattern unless these
    here: bool = False  # reads "." when given no file operand
    here_with: frozenset[str] = frozenset()  # ... only with one of these options (grep -r)
    destructive: bool = False  # what it writes cannot be restored (rm, shred): ``/`` and ``~`` are critical
    critical_with: frozenset[str] = frozenset()  # options making every path it names critical (rm -r)
    target_with: frozenset[str] = frozenset()  # operands="copy": options naming the destination (-t)
    remote: bool = False  # operands="copy": ``host:path`` operands name another machine (rsync)
    bundled_first: bool = False  # a first word of letters is a cluster of options (tar xzf)
    dash_means: str = ""  # the option a lone ``-`` before the command stands for (env -: -i)
    assigns_first: bool = False  # NAME=VALUE operands before the command are assignments (env)
    edits: bool = False  # operands="write": a plain file edit accept-edits may allow (touch)
    skip: int = 0  # operands="command": operands before the command (timeout's DURATION)
    skip_number: bool = False  # ... and then a number, when one follows (chrt's priority)
    single_dash: bool = False  # options are whole words after one dash (openssl -in FILE): the
    #: long lists name them
    options_by_handler: bool = False  # its handler or rules judge every option (no allow list here)
    rules: tuple[Rule, ...] = ()  # verdicts by argument, before the defaults above (see Rule)
    default_file: str = ""  # a rule's reads-first / writes-* file when no operand names one
    accepts: frozenset[str] = frozenset()  # the words a rule's ``other`` test allows (set, shopt)
    lists_with: frozenset[str] = frozenset()  # options that make stdout a list of paths (rg --files)
    lists: bool = False  # stdout is always a list of paths under what it reads (fd)
    command_with: frozenset[str] = frozenset()  # the words after these are a command it runs per match
    subcommands: frozenset[str] = frozenset()  # project tools: the subcommands that run project code
    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def options(self) -> tuple[Option, ...]:
        """Every option of the record, short ones first."""
        out = [Option(f"-{c}") for c in self.flags]
        out += [Option(f"-{c}", "required") for c in self.valued]
        out += [Option(f"--{n}", "optional" if n in _OPTIONAL else "") for n in sorted(self.long)]
        out += [Option(f"--{n}", "required") for n in sorted(self.long_valued)]
        out += [Option(f"--{n}", "pair") for n in sorted(self.long_pairs)]
        return tuple(out)

    @property
    def long_names(self) -> frozenset[str]:
        """Every long option the record knows (``--name``): GNU abbreviations resolve against them."""
        names = self.long | self.long_valued | self.long_pairs | self.asks_long | self.asks_long_valued
        return frozenset("--" + n for n in names)

    @property
    def examples(self) -> dict[str, tuple[str, ...]]:
        return {"allow": self.allow, "ask": self.ask, "deny": self.deny}


#: Long flags that accept ``=VALUE`` but never take the next word (``--color[=WHEN]``).
_OPTIONAL = words("color colour output hyperlink classify indicator-style debug")


#: The fields written as a string of words in the family modules (``long="help version"``).
_WORD_FIELDS = frozenset(
    f.name for f in fields(Program) if f.type in ("frozenset[str]", "frozenset[str] | None")
)


def program(name: str, category: str = "", **kw: Any) -> Program:
    """A record from the compact spelling the family modules use: option names and the other
    sets as strings of words, rules as tuples (:class:`Rule`'s fields).

    ``category`` and ``module`` default to the family module's (filled in by ``records()``)."""
    for key, value in kw.items():
        if key in _WORD_FIELDS and isinstance(value, str):
            kw[key] = words(value)
    kw["rules"] = tuple(Rule(*r) for r in kw.get("rules", ()))
    return Program(name=name, category=category, module=kw.pop("module", ""), **kw)


def plain(
    name: str, operands: str = "read", inside: str = "README.md", outside: str = "/etc/passwd", **kw: Any
) -> Program:
    """A record judged from its data alone, with the examples most such records have unless
    given: its workspace operand is allowed; a path outside the workspace and an option the
    record does not know ask."""
    kw.setdefault("allow", (f"{name} {inside}",))
    kw.setdefault("ask", (f"{name} {outside}", f"{name} --cairn-no-such-option {inside}"))
    return program(name, operands=operands, **kw)
