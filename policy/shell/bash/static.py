"""Static helpers: evaluating tiny substitutions, textual last-resort checks, prescan of the text.

* :func:`evaluate_argv_chain` computes ``$(echo cm0= | base64 -d)`` -> ``rm`` (echo, printf,
  base64 -d, rev, xxd -r -p), so obfuscated command names are judged by what they decode to.
* :func:`backstop` matches the catastrophic patterns textually; it is used only where the parser
  cannot see (unparseable commands, inline interpreter code, here-docs fed to interpreters).
* :func:`prescan` finds NUL, invisible/bidirectional Unicode and control characters.
"""

from __future__ import annotations

import base64
import re
import unicodedata

__all__ = ["backstop", "evaluate_argv_chain", "heredoc_substitutions", "prescan"]

_BACKSTOP = [
    (
        re.compile(
            r"\brm\s+(?:-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(?:-[a-zA-Z-]+\s+)*(?:--\s+)?"
            r"(?:/|/\*|~|~/|~/\*|\$HOME|\$\{HOME\}|\"\$HOME\"|\.|\*)(?=[\s;&|'\")]|$)"
        ),
        "rm -r of /, ~ or the working directory",
    ),
    (re.compile(r"\brm\b[^\n;&|]*--no-preserve-root"), "rm --no-preserve-root"),
    (re.compile(r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;?\s*:"), "a fork bomb"),
    (re.compile(r"\b(\w+)\s*\(\s*\)\s*\{\s*\1\s*\|\s*\1\s*&\s*\}"), "a fork bomb"),
    (
        re.compile(r"\bfork\s+while\s+fork\b|while\s*\(?\s*(?:True|1)\s*\)?\s*:?\s*os\.fork\(\)"),
        "a fork bomb",
    ),
    (re.compile(r"\bmkfs(?:\.\w+)?\b|\bmke2fs\b|\bwipefs\b"), "formatting a disk"),
    (
        re.compile(r"\bdd\b[^\n]*\bof=/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|mapper)"),
        "dd onto a disk device",
    ),
    (
        re.compile(r">\s*/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk)[a-z0-9]*\b"),
        "writing onto a disk device",
    ),
    (
        re.compile(r"\b(?:curl|wget|fetch)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da|k|fi)?sh\b"),
        "downloading and running code",
    ),
    (re.compile(r"\b(?:ba|z|da|k)?sh\s+<\(\s*(?:curl|wget)\b"), "downloading and running code"),
    (re.compile(r"\bchmod\s+(?:-[a-zA-Z]*R[a-zA-Z]*\s+)\S*7\S*\s+/(?:\s|$)"), "chmod -R of /"),
    (re.compile(r"/dev/(?:tcp|udp)/[^\s/]+/\d+"), "a /dev/tcp network socket (reverse shell)"),
    (
        re.compile(r"shutil\.rmtree\(\s*['\"](?:/|~|/home)['\"]|os\.system\(\s*['\"]rm\s+-rf\s+/"),
        "deleting / from code",
    ),
]


def backstop(text: str) -> list[str]:
    """Catastrophic patterns found textually in ``text``."""
    found: list[str] = []
    for regex, what in _BACKSTOP:
        if regex.search(text) and what not in found:
            found.append(what)
    return found


def prescan(text: str) -> list[str]:
    """Characters that make a command unsafe to judge by what a person sees."""
    problems: list[str] = []
    if "\x00" in text:
        problems.append("the command contains a NUL character")
    for ch in sorted(set(text)):
        code = ord(ch)
        if ch in ("\n", "\t"):
            continue
        cat = unicodedata.category(ch)
        if code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0:
            if code != 0:
                problems.append(f"the command contains the control character U+{code:04X}")
        elif cat == "Cf":  # zero-width spaces and joiners, soft hyphen, bidi controls
            problems.append(f"the command contains the invisible or bidirectional character U+{code:04X}")
        elif cat == "Zs" and ch != " ":
            problems.append(f"the command contains the look-alike space U+{code:04X}")
        elif cat in ("Co", "Cn", "Cs"):
            problems.append(f"the command contains the unassigned or private character U+{code:04X}")
    return problems


def heredoc_substitutions(body: str) -> tuple[list[str], bool]:
    """Command substitutions in an unquoted here-doc body (they run in the outer shell)."""
    from cairn.policy.shell.bash.rewrite import skip_to_close

    found: list[str] = []
    unsafe = False
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            i += 2
            continue
        if body.startswith("$((", i):
            end = body.find("))", i)
            inner = body[i + 3 : end if end != -1 else len(body)]
            unsafe = unsafe or bool(re.search(r"\$\(|`", inner))
            i = len(body) if end == -1 else end + 2
            continue
        if body.startswith("$(", i):
            end = skip_to_close(body, i + 2, "$(")
            found.append(body[i + 2 : end - 1])
            i = end
            continue
        if body.startswith("${", i):
            end = skip_to_close(body, i + 2, "${")
            unsafe = unsafe or bool(re.search(r"\$\(|`", body[i + 2 : end]))
            i = end
            continue
        if ch == "`":
            end = i + 1
            while end < len(body) and body[end] != "`":
                end += 2 if body[end] == "\\" else 1
            found.append(body[i + 1 : end])
            i = end + 1
            continue
        i += 1
    return found, unsafe


def evaluate_argv_chain(stages: list[list[str]], literal_of: dict[int, str | None]) -> str | None:
    """Evaluate a pipeline of simple stages statically.

    ``stages`` are argv lists; ``literal_of[k]`` is the literal output of stage ``k`` when it is
    an echo/printf.  Returns the output, or ``None`` when it cannot be evaluated.
    """
    data: str | None = None
    for k, argv in enumerate(stages):
        name = argv[0].rsplit("/", 1)[-1] if argv else ""
        if literal_of.get(k) is not None:
            data = literal_of[k]
            continue
        if data is None:
            return None
        decode = any(a in ("-d", "-D", "--decode") for a in argv[1:])
        packed = re.sub(r"\s+", "", data)
        try:
            if name == "base64" and decode:  # padding added where it is missing
                data = base64.b64decode(packed + "=" * (-len(packed) % 4)).decode("utf-8", "replace")
            elif name == "base32" and decode:
                data = base64.b32decode(packed).decode("utf-8", "replace")
            elif name == "rev":
                data = "\n".join(line[::-1] for line in data.split("\n"))
            elif name == "xxd" and "-r" in argv and "-p" in argv:
                data = bytes.fromhex(packed).decode("utf-8", "replace")
            elif not (name == "cat" and len(argv) == 1):
                return None
        except ValueError:  # binascii.Error too: not base64/base32/hex
            return None
    return data
