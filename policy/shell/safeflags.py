"""Known-safe options of the programs that run without asking.

A command the table judges read-only (LOW) runs without a person only if every option it is
given is on its program's list here: "known command with known-safe flags", not "known command
minus dangerous flags".  An option missing from the list (a new one, a rare one, an
abbreviation GNU getopt would expand to something dangerous) makes the command ask.

:func:`unsafe_option` returns the first option not on the list, or ``None``.  Programs in
:data:`FREE_FORM` take arguments that are not options (``echo -n``, ``test -f``) or have their
own strict parser in their handler (``set``, ``shopt``, ``find``, ``sed``, ``awk``, ``git``);
programs in :data:`HARMLESS_OPTIONS` only print facts about the system whatever their options.
Any other program has no list: any option asks.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn.policy.shell.safegit import takes_next, unsafe_git_option
from cairn.policy.vocab import words

__all__ = ["FREE_FORM", "HARMLESS_OPTIONS", "Spec", "unsafe_option", "value_options"]


@dataclass(frozen=True)
class Spec:
    """Allowed options: short letters without/with a value, long names without/with a value."""

    flags: str = ""
    valued: str = ""
    long: frozenset[str] = frozenset()
    long_valued: frozenset[str] = frozenset()
    numeric: bool = False  # -20 (head -20)
    plus: bool = False  # +5 (tail +5)
    plus_text: bool = False  # +FORMAT (date +%F)


def _s(flags: str = "", valued: str = "", long: str = "", long_valued: str = "", **kw: bool) -> Spec:
    return Spec(flags, valued, frozenset(words(long)), frozenset(words(long_valued)), **kw)


_COMMON = "help version"
_SUMS = _s("bctwz", "", f"binary check tag text zero ignore-missing quiet status strict warn {_COMMON}")
_LS = _s(
    "aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1",
    "IwT",
    f"""all almost-all author escape ignore-backups color directory dired classify file-type
    full-time group-directories-first no-group human-readable si dereference-command-line
    dereference-command-line-symlink-to-dir hyperlink inode kibibytes dereference
    numeric-uid-gid literal hide-control-chars show-control-chars quote-name reverse recursive
    size context zero {_COMMON}""",
    "block-size format hide indicator-style ignore quoting-style sort time time-style tabsize width",
)
_GREP = _s(
    "abcEFGhHiIlLnoPqrRsTuUvVwxyzZ",
    "efmABCdD",
    f"""extended-regexp fixed-strings basic-regexp perl-regexp ignore-case no-ignore-case
    word-regexp line-regexp null-data no-messages invert-match byte-offset line-number
    line-buffered with-filename no-filename only-matching quiet silent recursive
    dereference-recursive files-with-matches files-without-match count initial-tab null text
    binary color colour {_COMMON}""",
    """regexp file max-count after-context before-context context include exclude exclude-dir
    exclude-from label devices directories binary-files group-separator""",
    numeric=True,
)
_RG = _s(
    "aABcCeEfFgHiIjlLmMnNopqrsStTuUvVwxz0.",
    "efgtTmABCjMErd",
    f"""files type-list count count-matches files-with-matches files-without-match fixed-strings
    follow hidden ignore-case smart-case case-sensitive invert-match line-number no-line-number
    no-heading heading no-filename with-filename no-ignore no-ignore-vcs no-ignore-parent
    no-ignore-dot no-ignore-global no-ignore-exclude no-ignore-files no-messages null
    only-matching quiet search-zip text trim vimgrep word-regexp line-regexp multiline
    multiline-dotall pcre2 json stats unrestricted column byte-offset crlf binary
    no-config passthru passthrough sort-files no-require-git one-file-system pretty
    color colors no-unicode unicode invert-match max-columns-preview include-zero
    block-buffered line-buffered no-pcre2-unicode auto-hybrid-regex list-file-types
    {_COMMON}""",
    """regexp file glob iglob type type-not type-add type-clear max-count after-context
    before-context context threads max-columns encoding replace max-depth max-filesize sort
    sortr color colors context-separator field-context-separator field-match-separator
    path-separator ignore-file dfa-size-limit regex-size-limit engine""",
    numeric=False,
)
_HEAD = _s("qvz", "nc", f"quiet silent verbose zero-terminated {_COMMON}", "lines bytes", numeric=True)
_TAIL = _s(
    "fFqvzr",
    "ncs",
    f"follow retry quiet silent verbose zero-terminated {_COMMON}",
    "lines bytes pid sleep-interval max-unchanged-stats",
    numeric=True,
    plus=True,
)
_DIFF = _s(
    "abBdEiNpPqrsStTuwyZ",
    "CUIxXSFLWD",
    f"""normal brief report-identical-files ed rcs side-by-side left-column
    suppress-common-lines show-c-function expand-tabs initial-tab ignore-case
    ignore-tab-expansion ignore-trailing-space ignore-space-change ignore-all-space
    ignore-blank-lines text strip-trailing-cr recursive new-file unidirectional-new-file
    no-dereference minimal speed-large-files suppress-blank-empty color context unified
    {_COMMON}""",
    """label ignore-matching-lines exclude exclude-from starting-file width tabsize
    show-function-line from-file to-file horizon-lines line-format old-line-format
    new-line-format unchanged-line-format""",
    numeric=True,
)
_BAT = _s(
    "AnpPuS",
    "lHrm",
    f"""show-all plain number diff chop-long-lines force-colorization list-themes
    list-languages squeeze-blank unbuffered italic-text {_COMMON}""",
    """language highlight-line line-range map-syntax theme style tabs wrap color decorations
    file-name diff-context terminal-width squeeze-limit ignored-suffix""",
)
_ZCAT = _s("fqvlLhtV", "", f"force quiet verbose list test {_COMMON}")

#: The allow lists, by program.
SPECS: dict[str, Spec] = {
    "cat": _s(
        "AbeEnstTuv",
        "",
        f"""show-all number-nonblank number squeeze-blank show-ends
        show-tabs show-nonprinting {_COMMON}""",
    ),
    "tac": _s("br", "s", f"before regex {_COMMON}", "separator"),
    "nl": _s(
        "p",
        "bdfhilnsvw",
        f"no-renumber {_COMMON}",
        """body-numbering section-delimiter
        footer-numbering header-numbering line-increment join-blank-lines number-format
        number-separator starting-line-number number-width""",
    ),
    "head": _HEAD,
    "tail": _TAIL,
    "more": _s("dlfpcsu", "n", _COMMON, numeric=True),
    "wc": _s("clmwL", "", f"bytes chars lines words max-line-length {_COMMON}", "total"),
    "od": _s(
        "bcdfilosxv",
        "AjNtSw",
        f"output-duplicates traditional {_COMMON}",
        """address-radix
        skip-bytes read-bytes format width strings endian""",
    ),
    "hexdump": _s("bcCdovx", "efns", _COMMON),
    "hd": _s("bcCdovx", "efns", _COMMON),
    "strings": _s(
        "afdw",
        "ntTe",
        f"all print-file-name data {_COMMON}",
        """bytes radix encoding
        target output-separator""",
    ),
    "file": _s(
        "bcEhiIkLlNnprsvzZ0S",
        "mFPe",
        f"""brief mime mime-type mime-encoding dereference
        no-dereference keep-going raw special-files uncompress extension apple print0 no-pad
        no-buffer {_COMMON}""",
        "magic-file separator exclude parameter",
    ),
    "stat": _s("LftZ", "cf", f"dereference file-system terse cached {_COMMON}", "format printf"),
    "md5sum": _SUMS,
    "sha1sum": _SUMS,
    "sha224sum": _SUMS,
    "sha256sum": _SUMS,
    "sha384sum": _SUMS,
    "sha512sum": _SUMS,
    "b2sum": _s("bctwz", "l", f"binary check tag text zero quiet status strict warn {_COMMON}", "length"),
    "shasum": _s(
        "bctU0", "a", f"binary check text UNIVERSAL tag zero quiet status strict warn {_COMMON}", "algorithm"
    ),
    "cksum": _s("", "al", f"base64 raw tag untagged check {_COMMON}", "algorithm length"),
    "sum": _s("rs", "", f"sysv {_COMMON}"),
    "md5": _s("qrn", "s", ""),
    "cut": _s(
        "nsz",
        "bcdf",
        f"complement only-delimited zero-terminated {_COMMON}",
        """bytes
        characters delimiter fields output-delimiter""",
    ),
    "paste": _s("sz", "d", f"serial zero-terminated {_COMMON}", "delimiters"),
    "join": _s("iz", "ajeot12v", f"ignore-case check-order nocheck-order header zero-terminated {_COMMON}"),
    "comm": _s("123iz", "", f"check-order nocheck-order total zero-terminated {_COMMON}", "output-delimiter"),
    "diff": _DIFF,
    "cmp": _s("bls", "in", f"print-bytes verbose silent quiet {_COMMON}", "ignore-initial bytes"),
    "column": _s(
        "tnxeJLR",
        "csNHWOlodCr",
        f"table fillrows json keep-empty-lines {_COMMON}",
        """separator
        output-separator table-columns table-name table-order table-right table-hide
        table-wrap table-truncate table-noextreme table-noheadings output-width""",
    ),
    "fold": _s("bs", "w", f"bytes spaces {_COMMON}", "width"),
    "fmt": _s(
        "cstu",
        "wpg",
        f"crown-margin tagged-paragraph split-only uniform-spacing {_COMMON}",
        "width prefix goal",
        numeric=True,
    ),
    "expand": _s("i", "t", f"initial {_COMMON}", "tabs", numeric=True),
    "unexpand": _s("a", "t", f"all first-only {_COMMON}", "tabs", numeric=True),
    "rev": _s("0", "", _COMMON),
    "base32": _s("di", "w", f"decode ignore-garbage {_COMMON}", "wrap"),
    "basenc": _s(
        "di",
        "w",
        f"""decode ignore-garbage base64 base64url base32 base32hex base16
        base2msbf base2lsbf z85 {_COMMON}""",
        "wrap",
    ),
    "base64": _s("diD", "wb", f"decode ignore-garbage {_COMMON}", "wrap break"),
    "zcat": _ZCAT,
    "gzcat": _ZCAT,
    "bzcat": _s("skvqL", "", f"small quiet verbose {_COMMON}"),
    "xzcat": _s("qvQTF", "", f"quiet verbose {_COMMON}", "format threads"),
    "zstdcat": _s("qvf", "", f"quiet verbose {_COMMON}"),
    "lzcat": _s("qv", "", f"quiet verbose {_COMMON}"),
    "readlink": _s(
        "efmnqsvz",
        "",
        f"""canonicalize canonicalize-existing canonicalize-missing
        no-newline quiet silent verbose zero {_COMMON}""",
    ),
    "realpath": _s(
        "eLmPqsz",
        "",
        f"""canonicalize-existing canonicalize-missing logical physical
        quiet strip no-symlinks zero {_COMMON}""",
        "relative-to relative-base",
    ),
    "ls": _LS,
    "dir": _LS,
    "vdir": _LS,
    "du": _s(
        "0abcDhHklLmPsSx",
        "dBtX",
        f"""null all apparent-size bytes total dereference-args
        human-readable inodes dereference no-dereference count-links separate-dirs si summarize
        one-file-system {_COMMON}""",
        """max-depth block-size threshold time time-style exclude
        exclude-from""",
    ),
    "df": _s(
        "ahHiklPTv",
        "tBxF",
        f"""all human-readable si inodes local no-sync sync portability
        print-type total output {_COMMON}""",
        "block-size type exclude-type",
    ),
    "bat": _BAT,
    "batcat": _BAT,
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "zgrep": _GREP,
    "zegrep": _GREP,
    "zfgrep": _GREP,
    "rgrep": _GREP,
    "rg": _RG,
    "ag": _s(
        "aAfgilLnoQrsSuUvwz0",
        "ABCGgmp",
        f"""all-text all-types case-sensitive count
        follow hidden ignore-case literal nocolor nogroup noheading numbers only-matching
        silent smart-case unrestricted vimgrep word-regexp files-with-matches stats {_COMMON}""",
        "depth ignore file-search-regex context after before max-count",
    ),
    "fd": _s(
        "HIiLsFglaqp0u",
        "etdEjScoxX",
        f"""hidden no-ignore no-ignore-vcs ignore-case
        case-sensitive follow full-path fixed-strings glob absolute-path list-details quiet
        show-errors print0 unrestricted prune one-file-system {_COMMON}""",
        """extension type
        max-depth min-depth exclude threads size changed-within changed-before owner color
        base-directory search-path ignore-file max-results exact-depth format""",
    ),
    "sort": _s(
        "bdfgiMhnRrVcCmsuz",
        "kSt",
        f"""ignore-leading-blanks dictionary-order
        ignore-case general-numeric-sort ignore-nonprinting month-sort human-numeric-sort
        numeric-sort random-sort reverse version-sort check merge stable unique
        zero-terminated debug {_COMMON}""",
        """key buffer-size field-separator
        parallel batch-size sort""",
    ),
    "uniq": _s(
        "cdDiuz",
        "fswN",
        f"""count repeated all-repeated ignore-case unique
        zero-terminated group {_COMMON}""",
        "skip-fields skip-chars check-chars",
    ),
    "xxd": _s("aCEeiprubdu", "cglosnR", f"autoskip capitalize {_COMMON}", "cols"),
    "tr": _s("cCdst", "", f"complement delete squeeze-repeats truncate-set1 {_COMMON}"),
    "less": _s(
        "aAbBcCdeEfFgGiIJKLmMnNqQrRsSuUVwWXyz",
        "hjPtTx#",
        f"""quit-if-one-screen
        no-init RAW-CONTROL-CHARS raw-control-chars chop-long-lines ignore-case LINE-NUMBERS
        line-numbers LONG-PROMPT squeeze-blank-lines quiet silent mouse no-lessopen
        {_COMMON}""",
        "tabs shift pattern tag prompt",
    ),
    "man": _s("afkKwWu", "sSMLm", f"all apropos whatis where location {_COMMON}", "sections"),
    "jq": _s(
        "ncrjaSsCMe0",
        "",
        f"""null-input compact-output raw-output join-output
        ascii-output sort-keys slurp color-output monochrome-output tab exit-status seq
        stream stream-errors raw-input raw-output0 {_COMMON}""",
        """arg argjson slurpfile
        rawfile indent args jsonargs from-file""",
    ),
    "gojq": _s(
        "ncrjaSsCMe",
        "",
        f"""null-input compact-output raw-output join-output
        ascii-output sort-keys slurp color-output monochrome-output tab exit-status yaml-input
        yaml-output {_COMMON}""",
        "arg argjson slurpfile rawfile indent args jsonargs from-file",
    ),
    "yq": _s(
        "CMPrNe0j",
        "opI",
        f"""colors no-colors prettyPrint unwrapScalar no-doc
        exit-status nul-output null-input {_COMMON}""",
        """output-format input-format
        indent expression""",
    ),
    "tree": _s(
        "adlfxpsugDFqNQvtrcUCnAShJXi",
        "LPI",
        f"""noreport charset dirsfirst prune
        du si gitignore {_COMMON}""",
        "filelimit timefmt sort",
    ),
    "iconv": _s("cls", "ft", f"list silent {_COMMON}", "from-code to-code"),
    "date": _s(
        "uRI",
        "dr",
        f"utc universal rfc-email debug {_COMMON}",
        """date reference
        iso-8601 rfc-3339 resolution""",
        plus_text=True,
    ),
    "tar": _s(
        "tvzjJZaOwkpS",
        "fCbH",
        f"""list verbose gzip gunzip bzip2 xz zstd lzma
        auto-compress to-stdout numeric-owner full-time utc wildcards no-wildcards
        {_COMMON}""",
        "file directory exclude strip-components blocking-factor format",
    ),
    "unzip": _s("lvtZqpc", "", "", ""),
    "lsof": _s("aAbhilnNOPRtUVwXM", "cdgpuskrDTFEK", f"{_COMMON}"),
    "dd": _s(),
}

#: Builtins and printers whose options cannot read files, write or run programs.
HARMLESS_OPTIONS = frozenset(
    words(
        """true false : sleep wait shift exit return break continue seq expr basename dirname pwd
        cal whoami id groups logname uname arch nproc uptime tty locale getconf clear tput jobs
        dirs times which whereis help type ps pgrep pidof free vmstat iostat lsblk lscpu lsusb
        lspci lsmod who w last lastlog netstat ss top htop hostname"""
    )
)
#: Handled by their own handler's strict parser (or their arguments are not options).
FREE_FORM = frozenset(
    words(
        """echo printf test [ cd pushd popd set shopt alias unalias export declare local readonly
        typeset history hash command builtin trap exec find sed gsed awk gawk mawk nawk
        flock busybox watch git read unset getopts let mapfile readarray compgen complete
        printenv"""
    )
)


def unsafe_option(name: str, args: list[str]) -> str | None:
    """The first option of ``name args`` not known to be safe, or ``None``."""
    if name == "git":
        return unsafe_git_option(args)
    if name in FREE_FORM or name in HARMLESS_OPTIONS:
        return None
    spec = SPECS.get(name)
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            return None
        if arg in ("-", "") or not arg.startswith(("-", "+")):
            continue
        if spec is None:
            return arg
        if arg.startswith("+"):
            if (spec.plus and arg[1:].isdigit()) or spec.plus_text:
                continue
            return arg
        if arg.startswith("--"):
            key, eq, _ = arg[2:].partition("=")
            if key in spec.long_valued:
                i += takes_next(args, i, eq)
                continue
            if key in spec.long:
                continue
            return arg.split("=", 1)[0]
        if spec.numeric and arg[1:].isdigit():
            continue
        for k, letter in enumerate(arg[1:], start=1):
            if letter in spec.valued:
                i += 0 if arg[k + 1 :] else takes_next(args, i, "")
                break
            if letter not in spec.flags:
                return f"-{letter}" if len(arg) > 2 else arg
    return None


def value_options(name: str) -> tuple[str, frozenset[str]]:
    """The options of ``name`` that take a value: short letters, and long names with ``--``.

    The one statement of option arity: the reader table splits operands from options with it,
    so a flag can never swallow the path after it (``bat -p /etc/passwd``)."""
    spec = SPECS.get(name)
    if spec is None:
        return "", frozenset()
    return spec.valued, frozenset("--" + n for n in spec.long_valued)
