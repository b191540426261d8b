"""Readers: programs that print the files they are given (and nothing else).

One record per program (see :mod:`cairn.policy.shell.programs.record`); programs that
share an option list (aliases, checksum tools) share one statement of it.
"""

from __future__ import annotations

from typing import Any

from cairn.policy.shell.programs.record import Program, plain, program

__all__ = ["FAMILY", "RECORDS"]

FAMILY = "reader"

_BAT_OPTIONS: dict[str, Any] = dict(
    flags="AnpPuS",
    valued="lHrm",
    long="""chop-long-lines diff force-colorization help italic-text list-languages list-themes
        number plain show-all squeeze-blank unbuffered version""",
    long_valued="""color decorations diff-context file-name highlight-line ignored-suffix language
        line-range map-syntax squeeze-limit style tabs terminal-width theme wrap""",
)
_ZCAT_OPTIONS: dict[str, Any] = dict(
    decodes=True, flags="fqvlLhtV", long="force help list quiet test verbose version"
)
_MD5SUM_OPTIONS: dict[str, Any] = dict(
    flags="bctwz", long="binary check help ignore-missing quiet status strict tag text version warn zero"
)

# fmt: off
RECORDS: tuple[Program, ...] = (
    plain("b2sum", flags="bctwz", valued="l",
        long="binary check help quiet status strict tag text version warn zero", long_valued="length"),
    plain("base32", decodes_with="-d --decode", says="only prints", flags="di", valued="w",
        long="decode help ignore-garbage version", long_valued="wrap"),
    plain("base64", decodes_with="-d -D --decode", says="only prints", flags="diD", valued="wb",
        long="decode help ignore-garbage version", long_valued="break wrap", ask=("base64 /etc/passwd",)),
    plain("basenc", decodes_with="-d --decode", says="only prints", flags="di", valued="w",
        long="""base16 base2lsbf base2msbf base32 base32hex base64 base64url decode help
        ignore-garbage version z85""",
        long_valued="wrap"),
    plain("bat", runs_with="--pager", env=("BAT_PAGER", "BAT_CONFIG_PATH", "PAGER"), **_BAT_OPTIONS,
        allow=("bat -p README.md", "bat --style=plain README.md"),
        ask=("bat -p /etc/passwd", "bat --pager=sh README.md")),
    program("batcat", runs_with="--pager", env=("BAT_PAGER", "BAT_CONFIG_PATH", "PAGER"), **_BAT_OPTIONS,
        allow=(), ask=("batcat --cairn-no-such-option README.md",)),
    plain("bzcat", decodes=True, flags="skvqL", long="help quiet small verbose version"),
    plain("cat", flags="AbeEnstTuv",
        long="""help number number-nonblank show-all show-ends show-nonprinting show-tabs
        squeeze-blank version"""),
    plain("cksum", valued="al", long="base64 check help raw tag untagged version",
        long_valued="algorithm length"),
    plain("file", reads_with="-f -m", env=("MAGIC",), flags="bcEhiIkLlNnprsvzZ0S", valued="mFPe",
        long="""apple brief dereference extension help keep-going mime mime-encoding mime-type
        no-buffer no-dereference no-pad print0 raw special-files uncompress version""",
        long_valued="exclude magic-file parameter separator"),
    plain("gzcat", **_ZCAT_OPTIONS),
    plain("hd", flags="bcCdovx", valued="efns", long="help version"),
    plain("head", flags="qvz", valued="nc", long="help quiet silent verbose version zero-terminated",
        long_valued="bytes lines", numeric=True, allow=("head -20 README.md", "head -n 5 README.md"),
        ask=("head /etc/passwd", "head --lin=5 README.md")),
    plain("hexdump", flags="bcCdovx", valued="efns", long="help version"),
    plain("iconv", writes_with="-o --output", says="only prints", env=("GCONV_PATH",), asks_valued="o",
        asks_long_valued="output", flags="cls", valued="ft", long="help list silent version",
        long_valued="from-code to-code", allow=("iconv -f utf-8 -t ascii README.md",),
        ask=("iconv -f utf-8 -t ascii -o src/out.txt README.md",),
        deny=("iconv -f utf-8 -t ascii -o /etc/x README.md",)),
    plain("json_pp"),
    plain("less", env=("LESSOPEN", "LESSCLOSE", "LESSKEY", "LESSEDIT", "VISUAL", "EDITOR"), asks_valued="kOop",
        asks_long_valued="log-file LOG-FILE lesskey-file", flags="aABcCdeEfFgGiIJKLmMnNqQrRsSuUVwWX",
        valued="bhjPtTxyz#",
        long="""LINE-NUMBERS LONG-PROMPT RAW-CONTROL-CHARS chop-long-lines help ignore-case
        line-numbers mouse no-init no-lessopen quiet quit-if-one-screen raw-control-chars
        silent squeeze-blank-lines version""",
        long_valued="pattern prompt shift tabs tag", writes_with="-o -O --log-file --LOG-FILE",
        rules=(
            ("+", "exec", "high", "{opt} runs pager commands at start (they can run shell commands)"),
            ("-o -O --log-file --LOG-FILE", "write", "medium", "{opt} writes a log file"),
        ),
        ask=("less /etc/passwd", "less +!id README.md", "less -o log.txt README.md")),
    plain("look"),
    plain("lzcat", decodes=True, flags="qv", long="help quiet verbose version"),
    plain("man", env=("MANPAGER", "PAGER", "MANOPT", "MANPATH", "MANROFFOPT", "GROFF_COMMAND"),
        asks_valued="CEHPRe", asks_long_valued="config-file html manpath pager", flags="afkKwWu",
        valued="sSMLm", long="all apropos help location version whatis where", long_valued="sections",
        rules=(
            ("-P --pager -H --html", "exec", "high", "-P/-H runs another program"),
            (
                "-l --local-file /",
                "read",
                "medium",
                "formats a file (its roff requests can include other files and run preprocessors)",
            ),
        ),
        allow=("man ls",), ask=("man -P sh ls", "man --pager=sh ls", "man ./x.1")),
    plain("md5", flags="qrn", valued="s"),
    plain("md5sum", **_MD5SUM_OPTIONS),
    plain("more", env=("PAGER", "EDITOR", "VISUAL"), flags="dlfpcsu", valued="n", long="help version",
        numeric=True),
    plain("nl", flags="p", valued="bdfhilnsvw", long="help no-renumber version",
        long_valued="""body-numbering footer-numbering header-numbering join-blank-lines line-increment
        number-format number-separator number-width section-delimiter starting-line-number"""),
    plain("nm"),
    plain("numfmt"),
    plain("objdump"),
    plain("od", flags="bcdfilosxv", valued="AjNtSw", long="help output-duplicates traditional version",
        long_valued="address-radix endian format read-bytes skip-bytes strings width"),
    plain("pr"),
    plain("readelf"),
    plain("rev", decodes=True, says="only prints", flags="0", long="help version"),
    plain("sha1sum", **_MD5SUM_OPTIONS),
    plain("sha224sum", **_MD5SUM_OPTIONS),
    plain("sha256sum", **_MD5SUM_OPTIONS),
    plain("sha384sum", **_MD5SUM_OPTIONS),
    plain("sha512sum", **_MD5SUM_OPTIONS),
    plain("shasum", flags="bctU0", valued="a",
        long="UNIVERSAL binary check help quiet status strict tag text version warn zero",
        long_valued="algorithm"),
    plain("size"),
    plain("strings", flags="afdw", valued="ntTe", long="all data help print-file-name version",
        long_valued="bytes encoding output-separator radix target"),
    plain("sum", flags="rs", long="help sysv version"),
    plain("tac", flags="br", valued="s", long="before help regex version", long_valued="separator"),
    plain("tail", flags="fFqvzr", valued="ncs",
        long="follow help quiet retry silent verbose version zero-terminated",
        long_valued="bytes lines max-unchanged-stats pid sleep-interval", numeric=True, plus=True,
        allow=("tail -n 20 README.md",), ask=("tail /etc/passwd",)),
    plain("wc", flags="clmwL", long="bytes chars help lines max-line-length version words",
        long_valued="total"),
    plain("xxd", writes_second=True, decodes_with="-r", says="only prints", flags="aCEeiprubd",
        valued="cglosnR", long="autoskip capitalize help version", long_valued="cols",
        ask=("xxd -r README.md src/app.py",)),
    plain("xzcat", decodes=True, flags="qvQTF", long="help quiet verbose version", long_valued="format threads"),
    plain("zcat", **_ZCAT_OPTIONS),
    plain("zstdcat", decodes=True, flags="qvf", long="help quiet verbose version"),
)
# fmt: on
