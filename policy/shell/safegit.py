"""Known-safe options of git's read-only subcommands (see :mod:`cairn.policy.shell.safeflags`).

Left out on purpose, so they ask: options that write (``--output``, ``fsck --lost-found``,
``interpret-trailers --in-place``), run programs (``--ext-diff``, ``--textconv``,
``--filters``, ``grep -O``), or read files named anywhere (``-O<orderfile>``,
``--ignore-revs-file``, ``--exclude-from``, ``grep -f``, ``archive --add-file``).
"""

from __future__ import annotations

from cairn.policy.vocab import words

__all__ = ["takes_next", "unsafe_git_option"]

_GLOBAL_VALUED = {"-C", "-c"}
_LOG_LONG = frozenset(
    words(
        """oneline graph decorate no-decorate decorate-refs decorate-refs-exclude stat numstat
        shortstat dirstat summary name-only name-status patch no-patch raw patch-with-stat
        patch-with-raw full-index binary abbrev abbrev-commit no-abbrev-commit no-abbrev
        relative-date date pretty format encoding expand-tabs no-expand-tabs notes no-notes
        show-notes show-signature all branches tags remotes glob exclude reflog walk-reflogs
        first-parent merges no-merges min-parents max-parents no-min-parents no-max-parents
        since after until before author committer grep all-match invert-grep regexp-ignore-case
        basic-regexp extended-regexp fixed-strings perl-regexp max-count skip follow
        full-history simplify-merges simplify-by-decoration ancestry-path dense sparse
        boundary left-right left-only right-only cherry-mark cherry-pick cherry topo-order
        date-order author-date-order reverse no-walk do-walk color no-color color-moved
        color-words word-diff word-diff-regex ignore-space-change ignore-all-space
        ignore-space-at-eol ignore-blank-lines ignore-cr-at-eol ignore-matching-lines
        ignore-submodules find-renames find-copies find-copies-harder no-renames
        rename-empty no-rename-empty irreversible-delete diff-filter pickaxe-all
        pickaxe-regex minimal patience histogram anchored diff-algorithm unified inter-hunk-context
        function-context text src-prefix dst-prefix no-prefix default-prefix line-prefix
        relative no-relative cached staged merge-base exit-code quiet check ita-invisible-in-index
        ita-visible-in-index indent-heuristic no-indent-heuristic submodule stdin parents
        children log-size source use-mailmap mailmap clear-decorations mm combined-all-paths
        remerge-diff diff-merges no-diff-merges dd cc first-parent-only count objects
        objects-edge unpacked in-commit-order timestamp header no-commit-id root
        always pretty-format show-pulls show-linear-break single-worktree ignore-missing
        bisect numbered sort committer-date-is-author-date creation-factor no-dual-color
        dual-color left-prefix right-prefix name-only-stat compact-summary output-indicator-new
        output-indicator-old output-indicator-context stat-width stat-name-width
        stat-graph-width stat-count break-rewrites no-color-moved color-moved-ws
        no-color-moved-ws ws-error-highlight since-as-filter max-age min-age no-ext-diff
        no-textconv abbrev-ref long short branch porcelain verbose untracked-files ignored
        column no-column ahead-behind no-ahead-behind renames show-stash null find-object
        follow-symlinks remerge-diff-only ignore-rev show-stats show-email show-name
        show-number incremental line-porcelain root score-debug progress no-progress
        contains exact-match match candidates dirty broken first-parent tags all long
        verify symbolic symbolic-full-name show-toplevel git-dir absolute-git-dir
        git-common-dir show-cdup show-prefix is-inside-work-tree is-inside-git-dir
        is-bare-repository is-shallow-repository show-superproject-working-tree
        sq-quote sq default revs-only no-revs flags no-flags local-env-vars path-format
        shared-index-path show-object-format show-ref-format verify since until
        points-at merged no-merged no-contains ignore-case shell perl python tcl omit-empty
        count start-number heads hash dereference exists head independent octopus
        is-ancestor fork-point name-only refs annotate-stdin no-undefined human-readable
        non-matching no-index batch batch-check batch-all-objects batch-command buffer
        unordered allow-unknown-type full-name full-tree object-only error-unmatch
        exclude-standard directory no-empty-directory recurse-submodules eol deduplicate
        others modified deleted killed unmerged stage sparse debug cached-only
        prefix worktree-attributes list build-options unreachable dangling no-dangling
        no-reflogs full connectivity-only strict name-objects max-depth and or not
        all-match break-on-empty invert-match word-regexp files-with-matches
        files-without-match name-only line-number column function-context show-function
        heading break null-data threads untracked no-exclude-standard recursive
        textconv-none current topics more independent sha1-name no-name date-order
        only-trailers only-input unfold parse no-divider trailer z"""
    )
)
#: Long options that take the next word as their value when not written ``--opt=value``.
_LOG_VALUED = frozenset(
    words(
        """author committer grep since after until before max-count skip format pretty date
        decorate-refs decorate-refs-exclude encoding exclude glob sort points-at merged
        no-merged contains no-contains count diff-filter abbrev ignore-rev match candidates
        format trailer prefix max-depth threads untracked-files find-object min-parents
        max-parents diff-algorithm inter-hunk-context src-prefix dst-prefix line-prefix
        word-diff-regex ignore-matching-lines color-moved-ws creation-factor start-number
        stat-width stat-name-width stat-graph-width stat-count output-indicator-new
        output-indicator-old output-indicator-context path-format default since-as-filter"""
    )
)
#: Short options, without and with a value, per subcommand family.
_SHORT: dict[str, tuple[str, str]] = {
    "log": ("pusziEFPMCBDRabwWmctrgqvhfNXY", "nSGLUlI"),
    "status": ("sbuvzM", ""),
    "blame": ("blcfnpstwesMCL", "Lw"),
    "ls-files": ("cdmoiskuvtfz", "x"),
    "ls-tree": ("rdtlz", ""),
    "cat-file": ("tsepPZ", ""),
    "grep": ("ainvwlLhHcEFGPoqzWrpI", "ABCem"),
    "rev-parse": ("q", ""),
    "show-ref": ("dsq", ""),
    "merge-base": ("a", ""),
    "count-objects": ("vH", ""),
    "check-ignore": ("qvnz", ""),
    "check-attr": ("az", ""),
    "show-branch": ("ar", ""),
    "verify-commit": ("v", ""),
    "verify-tag": ("v", ""),
    "archive": ("lv0123456789", "o"),
    "stash": ("pusziEFPMCBDRabwWmctrgqvh", "nSGLUlI"),
}
_FAMILY = {
    "show": "log",
    "whatchanged": "log",
    "diff": "log",
    "diff-tree": "log",
    "diff-files": "log",
    "diff-index": "log",
    "range-diff": "log",
    "shortlog": "log",
    "rev-list": "log",
    "cherry": "log",
    "reflog": "log",
    "annotate": "blame",
    "describe": "rev-parse",
    "for-each-ref": "rev-parse",
    "name-rev": "rev-parse",
    "var": "rev-parse",
    "fsck": "rev-parse",
    "version": "rev-parse",
    "column": "rev-parse",
    "check-ref-format": "rev-parse",
    "check-mailmap": "rev-parse",
    "interpret-trailers": "rev-parse",
    "get-tar-commit-id": "rev-parse",
    "show-index": "rev-parse",
}


def _subcommand(args: list[str]) -> tuple[str, list[str]]:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _GLOBAL_VALUED else 1
    if i >= len(args):
        return "", []
    return args[i], args[i + 1 :]


def unsafe_git_option(args: list[str]) -> str | None:
    """The first option of a read-only git subcommand not known to be safe, or ``None``.

    Subcommands with their own strict listing check (``branch``, ``tag``, ``remote``,
    ``config``, ``notes``, ``worktree``...) are judged by ``gitcmd``/``gitmore`` alone.
    """
    sub, rest = _subcommand(args)
    family = _FAMILY.get(sub, sub)
    if family not in _SHORT:
        return None
    flags, valued = _SHORT[family]
    i = 0
    while i < len(rest):
        arg = rest[i]
        i += 1
        if arg == "--":
            return None
        if not arg.startswith("-") or arg == "-":
            continue
        if arg.startswith("--"):
            key, eq, _ = arg[2:].partition("=")
            if key in _LOG_VALUED:
                i += takes_next(rest, i, eq)
                continue
            if key in _LOG_LONG:
                continue
            return arg.split("=", 1)[0]
        if arg[1:].isdigit():
            continue
        for k, letter in enumerate(arg[1:], start=1):
            if letter in valued:
                i += 0 if arg[k + 1 :] else takes_next(rest, i, "")
                break
            if letter not in flags:
                return f"-{letter}" if len(arg) > 2 else arg
    return None


def takes_next(args: list[str], i: int, eq: str) -> int:
    """1 when the next word is this option's value.  A next word that looks like an option is
    never swallowed as a value, so no option can hide behind one (it is checked itself)."""
    return 0 if eq or i >= len(args) or args[i].startswith("-") else 1
