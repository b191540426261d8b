"""The ``cairn`` command (console script ``cairn.graph.apps.cli:main``).

Only argparse is imported here; each command imports what it needs when it runs, so
``cairn --help`` and ``cairn sessions`` never load langgraph or langchain.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default: ``sys.argv[1:]``), run the command, return the exit code."""
    from cairn.graph.apps.lazy_reexports import install

    install()  # langsmith.types and langgraph_sdk load only if used (lazy_reexports.py)
    from cairn.graph.apps.cli.commands import dispatch
    from cairn.graph.apps.cli.exits import CTRL_C, USAGE, CliError
    from cairn.graph.apps.cli.grammar import split_command, typo_of_command

    argv = list(sys.argv[1:] if argv is None else argv)
    command, rest = split_command(argv)
    _plain_warnings()
    _escaping_streams()
    if command is None:
        typo = typo_of_command(argv)
        if typo is not None:
            word, meant = typo
            print(
                f"cairn: error: unknown command {word!r}; did you mean `cairn {meant}`? "
                f"(to send it as a prompt: cairn -- {word})",
                file=sys.stderr,
            )
            return USAGE
    try:
        return dispatch(command, rest)
    except CliError as exc:
        print(f"cairn: error: {exc}", file=sys.stderr)
        return exc.code
    except SystemExit as exc:  # argparse: --help (0) and usage errors (2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return CTRL_C
    except BrokenPipeError:  # `cairn show ID --json | head`: the reader left, which is fine
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # storage trouble and the unexpected: one line, traceback with -v
        return _unexpected(exc, verbose="-v" in argv or "--verbose" in argv)


def _escaping_streams() -> None:
    """stdout and stderr write a lone surrogate (an undecodable name in a tool's arguments, a
    Latin-1 byte in a prompt) as ``\\xff`` instead of failing with UnicodeEncodeError."""
    import codecs

    from cairn.checkpoints.text_escape import escape_text  # light: `cairn sessions` loads no tools

    def escape(error: UnicodeError) -> tuple[str, int]:
        if not isinstance(error, UnicodeEncodeError):
            raise error
        text = escape_text(error.object[error.start : error.end])
        if not text.isascii():  # a character the stream's encoding lacks (an ASCII locale)
            text = text.encode("ascii", "backslashreplace").decode("ascii")
        return text, error.end

    codecs.register_error("cairn-escape", escape)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="cairn-escape")
            except (ValueError, OSError):  # a closed or unusual stream: leave it as it is
                pass


def _plain_warnings() -> None:
    """cairn's own warnings (no sandbox) as one plain stderr line, not Python's file:line form."""
    import warnings

    original = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):  # type: ignore[no-untyped-def]
        from cairn.graph.core.sandbox_setup import SandboxWarning

        if issubclass(category, SandboxWarning):
            print(f"cairn: {message}", file=file or sys.stderr)
            return
        original(message, category, filename, lineno, file, line)

    warnings.showwarning = show


def _unexpected(exc: Exception, *, verbose: bool) -> int:
    from cairn.graph.apps.cli.exits import ERROR, USAGE

    if verbose:
        import traceback

        traceback.print_exc()
    from cairn.errors import ConfigError

    config = isinstance(exc, ConfigError)
    print(f"cairn: error: {exc}" if config else f"cairn: error: {type(exc).__name__}: {exc}", file=sys.stderr)
    if not verbose and not config:
        print("(run again with -v for the traceback)", file=sys.stderr)
    return USAGE if config else ERROR
