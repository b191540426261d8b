"""Text tools: filters that reshape what they read (sort, cut, jq …).

One record per program (see :mod:`cairn.policy.shell.programs.record`); programs that
share an option list (aliases, checksum tools) share one statement of it.
"""

from __future__ import annotations

from typing import Any

from cairn.policy.shell.programs.record import Program, plain, program

__all__ = ["FAMILY", "RECORDS"]

FAMILY = "text"

#: jq and gojq: the one statement of their option arity (``--arg NAME VALUE`` takes two words).
_JQ: dict[str, Any] = dict(
    long_valued="from-file indent",
    long_pairs="arg argjson rawfile slurpfile",
    asks_valued="fL",
    asks_long_valued="library-path",
    reads_with="-f --from-file --rawfile --slurpfile",
    handler="textcmds.jq",
)

# fmt: off
RECORDS: tuple[Program, ...] = (
    plain("cmp", flags="bls", valued="in", long="help print-bytes quiet silent verbose version",
        long_valued="bytes ignore-initial"),
    plain("column", flags="tnxeJLR", valued="csNHWOlodCr",
        long="fillrows help json keep-empty-lines table version",
        long_valued="""output-separator output-width separator table-columns table-hide table-name
        table-noextreme table-noheadings table-order table-right table-truncate table-wrap""",
        allow=("column -t README.md",), ask=("column -t /etc/passwd",)),
    plain("comm", flags="123iz", long="check-order help nocheck-order total version zero-terminated",
        long_valued="output-delimiter"),
    plain("cut", flags="nsz", valued="bcdf", long="complement help only-delimited version zero-terminated",
        long_valued="bytes characters delimiter fields output-delimiter"),
    program("date", asks_valued="fs", asks_long_valued="file set", flags="uRI", valued="dr",
        long="debug help rfc-email universal utc version",
        long_valued="date iso-8601 reference resolution rfc-3339", plus_text=True, kind="neutral",
        says="only prints", reads_with="-f --file -r --reference",
        rules=(("-s --set", "general", "high", "-s sets the system clock"),), allow=("date +%F", "date -u"),
        ask=("date -s 2020-01-01",)),
    plain("diff", reads_with="-X", flags="abBdEiNpPqrstTuwyZ", valued="CUIxXSFLWD",
        long="""brief color context ed expand-tabs help ignore-all-space ignore-blank-lines
        ignore-case ignore-space-change ignore-tab-expansion ignore-trailing-space
        initial-tab left-column minimal new-file no-dereference normal rcs recursive
        report-identical-files show-c-function side-by-side speed-large-files
        strip-trailing-cr suppress-blank-empty suppress-common-lines text
        unidirectional-new-file unified version""",
        long_valued="""exclude exclude-from from-file horizon-lines ignore-matching-lines label line-format
        new-line-format old-line-format show-function-line starting-file tabsize to-file
        unchanged-line-format width""",
        numeric=True, allow=("diff --color README.md src/app.py",),
        ask=("diff --color /etc/passwd README.md", "diff --to-file=/etc/passwd README.md")),
    plain("expand", flags="i", valued="t", long="help initial version", long_valued="tabs", numeric=True),
    plain("fmt", flags="cstu", valued="wpg",
        long="crown-margin help split-only tagged-paragraph uniform-spacing version",
        long_valued="goal prefix width", numeric=True),
    plain("fold", flags="bs", valued="w", long="bytes help spaces version", long_valued="width"),
    program("gojq", flags="ncrjaSsCMe",
        long="""ascii-output color-output compact-output exit-status help join-output
        monochrome-output null-input raw-output slurp sort-keys tab version yaml-input
        yaml-output args jsonargs""",
        **_JQ, allow=(), ask=("gojq --cairn-no-such-option README.md",)),
    plain("join", flags="iz", valued="ajeot12v",
        long="check-order header help ignore-case nocheck-order version zero-terminated"),
    program("jq", flags="ncrjaSsCMe0",
        long="""ascii-output color-output compact-output exit-status help join-output
        monochrome-output null-input raw-input raw-output raw-output0 seq slurp sort-keys
        stream stream-errors tab version args jsonargs""", **_JQ,
        allow=("jq .name README.md", "jq -r .version README.md", "jq --arg f /etc/passwd .a README.md"),
        ask=("jq -n env", "jq -n '$ENV'", "jq . /etc/passwd", "jq --rawfile f /etc/passwd .a README.md",
            "jq -f x.jq README.md", "jq -L /tmp .a README.md", "jq --arg a -x .a README.md",
            "jq --args '$ENV' a")),
    plain("paste", flags="sz", valued="d", long="help serial version zero-terminated",
        long_valued="delimiters"),
    plain("sort", writes_with="-o --output", runs_with="--compress-program",
        reads_with="--files0-from --random-source", says="only prints", env=("TMPDIR",), asks_valued="oT",
        asks_long_valued="compress-program files0-from output random-source temporary-directory",
        flags="bdfgiMhnRrVcCmsuz", valued="kSt",
        long="""check debug dictionary-order general-numeric-sort help human-numeric-sort
        ignore-case ignore-leading-blanks ignore-nonprinting merge month-sort numeric-sort
        random-sort reverse stable unique version version-sort zero-terminated""",
        long_valued="batch-size buffer-size field-separator key parallel sort",
        allow=("sort README.md", "sort -u -k 2 README.md"),
        ask=("sort -o out.txt README.md", "sort --compress-program=sh README.md"),
        deny=("sort -o /etc/passwd README.md",)),
    program("tr", kind="read", decodes=True, says="only transforms its input", flags="cCdst",
        long="complement delete help squeeze-repeats truncate-set1 version", allow=("tr a b",),
        ask=("tr --frobnicate a b",)),
    plain("unexpand", flags="a", valued="t", long="all first-only help version", long_valued="tabs",
        numeric=True),
    plain("uniq", writes_second=True, says="only prints", flags="cdDiuz", valued="fswN",
        long="all-repeated count group help ignore-case repeated unique version zero-terminated",
        long_valued="check-chars skip-chars skip-fields", allow=("uniq -c README.md",),
        ask=("uniq README.md /tmp/out",)),
    program("yq", flags="CMPrNe0j", valued="opI",
        long="""colors exit-status help no-colors no-doc nul-output null-input prettyPrint
        unwrapScalar version""",
        long_valued="expression indent input-format output-format", handler="textcmds.jq",
        allow=("yq .a README.md",), ask=("yq -i .a=1 README.md", "yq -n 'strenv(HOME)'", "yq -o json 'strenv(HOME)' README.md")),
)
# fmt: on
