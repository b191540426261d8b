"""git's subcommands as data: what each does and the options its read-only forms run with.

``kind`` is ``"read"`` (only reads the repository: LOW with known-safe options), ``"write"``
(changes the repository or working tree), ``"network"`` (contacts a remote) or ``"own"`` (the
handler's own rules: ``branch``, ``config``, ``stash`` … whose action decides).  ``flags`` and
``valued`` are the short options that run without asking (``None``: the subcommand has no
option list and the handler judges it), ``like`` names the subcommand whose options it takes
(``show`` takes ``log``'s), and ``runs`` the options that make it run another program.  The
long options are one list for every subcommand (:data:`LONG`, :data:`LONG_VALUED`).  Read by
``gitcmd`` (what a subcommand does) and ``safeflags`` (which options run unasked).

Left out of the option lists on purpose, so they ask: options that write (``--output``,
``fsck --lost-found``, ``interpret-trailers --in-place``), run programs (``--ext-diff``,
``--textconv``, ``--filters``, ``grep -O``), or read files named anywhere (``-O<orderfile>``,
``--ignore-revs-file``, ``--exclude-from``, ``grep -f``, ``archive --add-file``).
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn.policy.vocab import words

__all__ = ["LONG", "LONG_VALUED", "SUBCOMMANDS", "Subcommand", "subcommand"]


@dataclass(frozen=True)
class Subcommand:
    """One git subcommand (see the module docstring)."""

    name: str
    kind: str
    flags: str | None = None
    valued: str = ""
    like: str = ""
    runs: frozenset[str] = frozenset()

    @property
    def short(self) -> tuple[str, str] | None:
        """Its short options (flags, valued), or those of the subcommand it is like."""
        if self.like:
            return _BY_NAME[self.like].short
        return None if self.flags is None else (self.flags, self.valued)


def _sub(
    name: str, kind: str, flags: str | None = None, valued: str = "", like: str = "", runs: str = ""
) -> Subcommand:
    return Subcommand(name, kind, flags, valued, like, words(runs))


LONG = frozenset(
    words(
        """oneline graph decorate no-decorate decorate-refs decorate-refs-exclude stat numstat
        shortstat dirstat summary name-only name-status patch no-patch raw patch-with-stat
        patch-with-raw full-index binary abbrev abbrev-commit no-abbrev-commit no-abbrev
        relative-date date pretty format encoding expand-tabs no-expand-tabs notes no-notes
        show-notes show-signature all branches tags remotes glob exclude reflog walk-reflogs
        first-parent merges no-merges min-parents max-parents no-min-parents no-max-parents since
        after until before author committer grep all-match invert-grep regexp-ignore-case
        basic-regexp extended-regexp fixed-strings perl-regexp max-count skip follow full-history
        simplify-merges simplify-by-decoration ancestry-path dense sparse boundary left-right
        left-only right-only cherry-mark cherry-pick cherry topo-order date-order author-date-order
        reverse no-walk do-walk color no-color color-moved color-words word-diff word-diff-regex
        ignore-space-change ignore-all-space ignore-space-at-eol ignore-blank-lines ignore-cr-at-eol
        ignore-matching-lines ignore-submodules find-renames find-copies find-copies-harder
        no-renames rename-empty no-rename-empty irreversible-delete diff-filter pickaxe-all
        pickaxe-regex minimal patience histogram anchored diff-algorithm unified inter-hunk-context
        function-context text src-prefix dst-prefix no-prefix default-prefix line-prefix relative
        no-relative cached staged merge-base exit-code quiet check ita-invisible-in-index
        ita-visible-in-index indent-heuristic no-indent-heuristic submodule stdin parents children
        log-size source use-mailmap mailmap clear-decorations mm combined-all-paths remerge-diff
        diff-merges no-diff-merges dd cc first-parent-only count objects objects-edge unpacked
        in-commit-order timestamp header no-commit-id root always pretty-format show-pulls
        show-linear-break single-worktree ignore-missing bisect numbered sort
        committer-date-is-author-date creation-factor no-dual-color dual-color left-prefix
        right-prefix name-only-stat compact-summary output-indicator-new output-indicator-old
        output-indicator-context stat-width stat-name-width stat-graph-width stat-count
        break-rewrites no-color-moved color-moved-ws no-color-moved-ws ws-error-highlight
        since-as-filter max-age min-age no-ext-diff no-textconv abbrev-ref long short branch
        porcelain verbose untracked-files ignored column no-column ahead-behind no-ahead-behind
        renames show-stash null find-object follow-symlinks remerge-diff-only ignore-rev show-stats
        show-email show-name show-number incremental line-porcelain score-debug progress no-progress
        contains exact-match match candidates dirty broken verify symbolic symbolic-full-name
        show-toplevel git-dir absolute-git-dir git-common-dir show-cdup show-prefix
        is-inside-work-tree is-inside-git-dir is-bare-repository is-shallow-repository
        show-superproject-working-tree sq-quote sq default revs-only no-revs flags no-flags
        local-env-vars path-format shared-index-path show-object-format show-ref-format points-at
        merged no-merged no-contains ignore-case shell perl python tcl omit-empty start-number heads
        hash dereference exists head independent octopus is-ancestor fork-point refs annotate-stdin
        no-undefined human-readable non-matching no-index batch batch-check batch-all-objects
        batch-command buffer unordered allow-unknown-type full-name full-tree object-only
        error-unmatch exclude-standard directory no-empty-directory recurse-submodules eol
        deduplicate others modified deleted killed unmerged stage debug cached-only prefix
        worktree-attributes list build-options unreachable dangling no-dangling no-reflogs full
        connectivity-only strict name-objects max-depth and or not break-on-empty invert-match
        word-regexp files-with-matches files-without-match line-number show-function heading break
        null-data threads untracked no-exclude-standard recursive textconv-none current topics more
        sha1-name no-name only-trailers only-input unfold parse no-divider trailer z"""
    )
)
#: Long options that take the next word as their value when not written ``--opt=value``.
LONG_VALUED = frozenset(
    words(
        """author committer grep since after until before max-count skip format pretty date
        decorate-refs decorate-refs-exclude encoding exclude glob sort points-at merged no-merged
        contains no-contains count diff-filter abbrev ignore-rev match candidates trailer prefix
        max-depth threads untracked-files find-object min-parents max-parents diff-algorithm
        inter-hunk-context src-prefix dst-prefix line-prefix word-diff-regex ignore-matching-lines
        color-moved-ws creation-factor start-number stat-width stat-name-width stat-graph-width
        stat-count output-indicator-new output-indicator-old output-indicator-context path-format
        default since-as-filter"""
    )
)

# fmt: off
SUBCOMMANDS: tuple[Subcommand, ...] = (
    _sub("archive", "own", "lv0123456789", valued="o", runs="--exec"),
    _sub("blame", "read", "blcfnpstwesMCL", valued="Lw"),
    _sub("cat-file", "read", "tsepPZ"),
    _sub("check-attr", "read", "az"),
    _sub("check-ignore", "read", "qvnz"),
    _sub("clone", "network", runs="--template --upload-pack -u"),
    _sub("count-objects", "read", "vH"),
    _sub("diff", "read", like="log", runs="--ext-diff"),
    _sub("fetch", "network", runs="--upload-pack"),
    _sub("grep", "read", "ainvwlLhHcEFGPoqzWrpI", valued="ABCem", runs="--open-files-in-pager"),
    _sub("init", "write", runs="--template"),
    _sub("log", "read", "pusziEFPMCBDRabwWmctrgqvhfNXY", valued="nSGLUlI", runs="--ext-diff"),
    _sub("ls-files", "read", "cdmoiskuvtfz", valued="x"),
    _sub("ls-remote", "network", runs="--upload-pack -u"),
    _sub("ls-tree", "read", "rdtlz"),
    _sub("merge-base", "read", "a"),
    _sub("pull", "network", runs="--upload-pack"),
    _sub("push", "network", runs="--exec --receive-pack"),
    _sub("rev-parse", "read", "q"),
    _sub("send-email", "network", runs="--sendmail-cmd --smtp-server"),
    _sub("show", "read", like="log", runs="--ext-diff"),
    _sub("show-branch", "read", "ar"),
    _sub("show-ref", "read", "dsq"),
    _sub("stash", "own", "pusziEFPMCBDRabwWmctrgqvh", valued="nSGLUlI"),
    _sub("status", "read", "sbuvzM"),
    _sub("verify-commit", "read", "v"),
    _sub("verify-tag", "read", "v"),
    _sub("annotate", "read", like="blame"),
    *(_sub(n, "read", like="rev-parse") for n in words(
        """check-mailmap check-ref-format column describe for-each-ref fsck get-tar-commit-id
        interpret-trailers name-rev show-index var version"""
    )),
    *(_sub(n, "read", like="log") for n in words(
        """cherry diff-files diff-index diff-tree range-diff rev-list shortlog whatchanged"""
    )),
    _sub("reflog", "own", like="log"),
    *(_sub(n, "write") for n in words(
        """add am apply checkout checkout-index cherry-pick citool clean commit commit-tree format-patch
        gc gui hash-object merge mergetool mktree mv pack-refs prune read-tree rebase repack replace
        reset restore revert rm sparse-checkout switch symbolic-ref update-index update-ref write-tree"""
    )),
    *(_sub(n, "own") for n in words(
        """bisect branch config filter-branch help hook maintenance notes remote submodule tag worktree"""
    )),
    *(_sub(n, "network") for n in words(
        """lfs p4 request-pull svn"""
    )),
)
# fmt: on
_BY_NAME = {s.name: s for s in SUBCOMMANDS}


def subcommand(name: str) -> Subcommand | None:
    """The subcommand ``name``, or ``None`` (an unknown subcommand, maybe an alias: it asks)."""
    return _BY_NAME.get(name)
