"""Searchers: programs that look for text or names under the paths they are given.

One record per program (see :mod:`cairn.policy.shell.programs.record`); programs that
share an option list (aliases, checksum tools) share one statement of it.
"""

from __future__ import annotations

from typing import Any

from cairn.policy.shell.programs.record import Program, plain, program

__all__ = ["FAMILY", "RECORDS"]

FAMILY = "search"

_GREP_OPTIONS: dict[str, Any] = dict(
    operands="read",
    kind="search",
    says="only searches",
    pattern_with="-e -f --regexp --file",
    reads_with="-f --file --exclude-from",
    here_with="-r -R --recursive --dereference-recursive",
    flags="abcEFGhHiIlLnoPqrRsTuUvVwxyzZ",
    valued="efmABCdD",
    long="""basic-regexp binary byte-offset color colour count dereference-recursive
        extended-regexp files-with-matches files-without-match fixed-strings help
        ignore-case initial-tab invert-match line-buffered line-number line-regexp
        no-filename no-ignore-case no-messages null null-data only-matching perl-regexp
        quiet recursive silent text version with-filename word-regexp""",
    long_valued="""after-context before-context binary-files context devices directories exclude
        exclude-dir exclude-from file group-separator include label max-count regexp""",
    numeric=True,
)

_ANYWHERE = ("always", "search", "medium", "lists files anywhere on the machine")
_FD: dict[str, Any] = dict(
    flags="HIiLsFglaqp0u",
    valued="etdEjScoxX",
    long="""absolute-path case-sensitive fixed-strings follow full-path glob help hidden
    ignore-case list-details no-ignore no-ignore-vcs one-file-system print0 prune quiet
    show-errors unrestricted version""",
    long_valued="""base-directory changed-before changed-within color exact-depth exclude extension
    format ignore-file max-depth max-results min-depth owner search-path size threads
    type""",
    operands="read",
    kind="search",
    says="only searches",
    pattern_with="",
    here=True,
    lists=True,
    reads_with="--base-directory --search-path --ignore-file",
    command_with="-x --exec -X --exec-batch",
)

# fmt: off
RECORDS: tuple[Program, ...] = (
    plain("ag", kind="search", pattern_with="", here=True, runs_with="--pager", says="only searches",
        asks_long_valued="pager path-to-ignore", flags="afilLnoQrsSuUvwz0", valued="ABCGgmp",
        long="""all-text all-types case-sensitive count files-with-matches follow help hidden
        ignore-case literal nocolor nogroup noheading numbers only-matching silent
        smart-case stats unrestricted version vimgrep word-regexp""",
        long_valued="after before context depth file-search-regex ignore max-count", allow=("ag x README.md",),
        ask=("ag x /etc/passwd", "ag --cairn-no-such-option x README.md")),
    program("egrep", **_GREP_OPTIONS, allow=("egrep x README.md",),
        ask=("egrep x /etc/passwd", "egrep --cairn-no-such-option x README.md")),
    program("fd", **_FD, allow=("fd app src",), ask=("fd -x rm", "fd app /etc", "fd -e py -x rm {}")),
    program("fdfind", **_FD, allow=("fdfind app src",), ask=("fdfind -x rm",)),
    program("fgrep", **_GREP_OPTIONS, allow=("fgrep x README.md",),
        ask=("fgrep x /etc/passwd", "fgrep --cairn-no-such-option x README.md")),
    program("grep", **_GREP_OPTIONS, allow=("grep -rn TODO src", "grep -c x README.md"),
        ask=("grep -r x /etc", "grep --include-from=x y .")),
    plain("rg", env=("RIPGREP_CONFIG_PATH",),
        asks_long_valued="pre pre-glob hostname-bin hyperlink-format generate",
        flags="acFHiIlLnNopqsSuUvVwxz0.", valued="efgtTmABCjMErd",
        long="""auto-hybrid-regex binary block-buffered byte-offset case-sensitive
        column count count-matches crlf files files-with-matches files-without-match
        fixed-strings follow heading help hidden ignore-case include-zero invert-match json
        line-buffered line-number line-regexp list-file-types max-columns-preview multiline
        multiline-dotall no-config no-filename no-heading no-ignore no-ignore-dot
        no-ignore-exclude no-ignore-files no-ignore-global no-ignore-parent no-ignore-vcs
        no-line-number no-messages no-pcre2-unicode no-require-git no-unicode null
        one-file-system only-matching passthrough passthru pcre2 pretty quiet search-zip
        smart-case sort-files stats text trim type-list unicode unrestricted version vimgrep
        with-filename word-regexp""",
        long_valued="""after-context before-context color colors context context-separator dfa-size-limit
        encoding engine field-context-separator field-match-separator file glob iglob
        ignore-file max-columns max-count max-depth max-filesize path-separator
        regex-size-limit regexp replace sort sortr threads type type-add type-clear type-not""",
        kind="search", says="only searches", pattern_with="-e -f --regexp --file --files --type-list",
        here=True, runs_with="--pre --hostname-bin", reads_with="-f --file --ignore-file",
        lists_with="--files", allow=("rg -n foo src", "rg --hidden foo", "rg --files src"),
        ask=("rg --pre=./x.sh foo", "rg foo /etc", "rg --pr=./x.sh foo")),
    *(
        program(n, options_by_handler=True, rules=(_ANYWHERE,), ask=(f"{n} id_rsa",))
        for n in ("locate", "mlocate", "plocate")
    ),
    program("rgrep", **_GREP_OPTIONS, allow=("rgrep x README.md",),
        ask=("rgrep x /etc/passwd", "rgrep --cairn-no-such-option x README.md")),
    program("zegrep", **_GREP_OPTIONS, allow=("zegrep x README.md",),
        ask=("zegrep x /etc/passwd", "zegrep --cairn-no-such-option x README.md")),
    program("zfgrep", **_GREP_OPTIONS, allow=("zfgrep x README.md",),
        ask=("zfgrep x /etc/passwd", "zfgrep --cairn-no-such-option x README.md")),
    program("zgrep", **_GREP_OPTIONS, allow=("zgrep x README.md",),
        ask=("zgrep x /etc/passwd", "zgrep --cairn-no-such-option x README.md")),
)
# fmt: on
