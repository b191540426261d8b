"""Walker mixin: path effects, destructive targets, code run from files or stdin, cd."""

from __future__ import annotations

import os
import re
from typing import Any

from cairn.policy.levels import RiskLevel
from cairn.policy.paths import (
    critical_reason,
    home_dir,
    is_neutral_device,
    resolve_path,
    sensitive_read_reason,
)
from cairn.policy.shell.bash.state import Base, Ctx, Cwds
from cairn.policy.shell.bash.static import backstop
from cairn.policy.shell.bash.words import UNKNOWN
from cairn.policy.shell.result import PathEffect
from cairn.policy.shell.treescan import MAX_GLOB, glob_matches, names_secret, outside_link

__all__ = ["EffectsMixin"]

HIGH = RiskLevel.HIGH
_GLOB = re.compile(r"[*?\[]")
_EVERYTHING = {"*", ".*", "*/", ".*/", "**", "*.*", "{*,.*}", ".[!.]*", "..?*"}


class EffectsMixin(Base):
    def check_exfiltration(self) -> None:
        if self.s.network and self.s.credentials:
            self.r.add_hard_deny(
                f"reads credentials ({self.s.credentials[0]}) and talks to the network "
                f"({self.s.network[0]}): exfiltration"
            )

    def mentions(self, argv: list[str], cwds: Cwds) -> None:
        for word in argv[1:]:
            # the word, what follows its first = and its last @, and its =:, separated pieces
            candidates = {word, word.partition("=")[2], word.rpartition("@")[2], *re.split(r"[=:,]", word)}
            for cand in candidates:
                cand = cand.lstrip("@<")
                if not cand or UNKNOWN in cand or not ("/" in cand or cand.startswith(("~", "."))):
                    continue
                for info in self.resolve(cand, cwds):
                    if info is not None:
                        self.r.mentions.append(info)
                        self.credential(info)

    def credential(self, info: Any) -> None:
        """Remember a credential the command reads or names (with the network: exfiltration)."""
        reason = sensitive_read_reason(info)
        if reason:
            self.s.credentials.append(reason)
            self.check_exfiltration()

    def resolve(self, word: str, cwds: Cwds) -> list[Any]:
        """PathInfo for each possible working directory (None entries: unknowable)."""
        if UNKNOWN in word:
            return [None]
        value = word
        if _GLOB.search(value):
            prefix = _GLOB.split(value, 1)[0]
            value = prefix.rsplit("/", 1)[0] + "/" if "/" in prefix else "."
        if os.path.isabs(os.path.expanduser(value)):
            return [self._resolved(value, None)]
        if cwds is None:
            return [None]
        return [self._resolved(value, cwd) for cwd in sorted(cwds)]

    def _resolved(self, value: str, cwd: Any) -> Any:
        """``resolve_path``, cached for this evaluation (one realpath per path and directory)."""
        key = (value, cwd)
        found = self.s.resolved.get(key)
        if found is None:
            found = self.s.resolved[key] = resolve_path(value, self.ws, cwd)
        return found

    def effect(
        self, kind: str, word: str, cwds: Cwds, source: str, index: int | None, via_redirect: bool = False
    ) -> None:
        if word in ("-", ""):
            return
        if kind == "read" and UNKNOWN not in word and _GLOB.search(word):
            self.glob_reads(word, cwds, source, index)
        infos = self.resolve(word, cwds)
        seen: set[str] = set()
        for info in infos:
            if info is not None:
                if is_neutral_device(info.lexical) or str(info.path) in seen:
                    continue
                seen.add(str(info.path))
            self.r.effects.append(PathEffect(kind, word, info, source, via_redirect, index))
            if info is not None and kind == "read":
                self.credential(info)

    def glob_reads(self, pattern: str, cwds: Cwds, source: str, index: int | None) -> None:
        """Every path the glob names now is read (and judged); a glob that can spell a
        credential's name asks even before such a file exists."""
        secret = names_secret(pattern)
        if secret:
            self.r.add_ask(
                HIGH, f"the glob {pattern} can name {secret}, a file that holds credentials: {source}"
            )
        for cwd in sorted(cwds) if cwds is not None else []:
            matches, more = glob_matches(pattern, cwd)
            if more:
                self.r.add_ask(HIGH, f"the glob {pattern} names more than {MAX_GLOB} paths: {source}")
            for match in matches:
                if not _GLOB.search(match):
                    self.effect("read", os.path.join(cwd, match), frozenset({cwd}), source, index)

    def followed_links(self, name: str, words: list[str], cwds: Cwds, source: str) -> None:
        """A recursive reader that follows symlinks asks when one under it leaves the workspace."""
        for word in words or ["."]:
            for info in self.resolve(word, cwds):
                why = outside_link(info.path, self.ws) if info is not None and info.inside else None
                if why:
                    self.r.add_ask(HIGH, f"{name} follows symlinks and {why}: {source}")
                    return

    def critical(self, word: str, action: str, cwds: Cwds, source: str) -> None:
        if UNKNOWN in word:
            head = word.split(UNKNOWN, 1)[0]
            tail = word.rsplit(UNKNOWN, 1)[-1]
            if not head and tail.strip("/*") == "" and tail:
                self.r.add_ask(HIGH, f"{action} of a path that is / if a variable is empty: {source}")
            return
        glob_all = False
        value = word
        if _GLOB.search(word):
            base, _, last = word.rstrip("/").rpartition("/") if "/" in word.rstrip("/") else ("", "", word)
            if _GLOB.search(base) or last not in _EVERYTHING:
                return
            value = (base or ".") if not word.startswith("/") or base else "/"
            glob_all = True
        for info in self.resolve(value, cwds):
            if info is None:
                continue
            for path in {info.path, info.lexical}:
                reason = critical_reason(path, self.ws)
                if reason:
                    what = f"everything in {reason}" if glob_all else reason
                    self.r.add_hard_deny(f"{action} {word} would destroy {what}: {source}")
                    return
            root = self.ws.root
            for guarded in (root / ".git", root / ".cairn"):
                contains = info.path == guarded or (guarded.is_relative_to(info.path) and info.path != root)
                if contains and action.startswith(("rm", "mv", "find", "chmod", "chown", "rsync", "shred")):
                    self.r.protected.append(f"{action} {word} would remove or alter {guarded.name}: {source}")

    def executes(self, path: str, cwds: Cwds, source: str) -> None:
        if path in self.procsubs:
            info = self.procsubs[path]
            if info.download:
                self.r.add_hard_deny(f"downloads code and runs it: {source}")
            elif info.decoder or info.literal_decoded:
                self.r.add_hard_deny(f"decodes data and runs it as code: {source}")
            return
        for info in self.resolve(path, cwds):
            if info is not None and str(info.path) in self.s.downloaded:
                self.r.add_hard_deny(f"runs {path}, which this command just downloaded: {source}")

    def code_from_stdin(self, ctx: Ctx, cwds: Cwds, source: str, shell: bool) -> None:
        upstream = ctx.upstream
        if any(s.download for s in upstream):
            self.r.add_hard_deny(f"downloads code and pipes it into an interpreter: {source}")
            return
        if any(s.decoder or s.literal_decoded for s in upstream):
            self.r.add_hard_deny(f"decodes data (base64/hex/escapes) and runs it as code: {source}")
            return
        if any(s.network for s in upstream):
            self.r.add_hard_deny(f"runs code received from a network connection: {source}")
            return
        text = None
        if upstream and upstream[-1].literal is not None:
            text = upstream[-1].literal
        elif ctx.stdin_text is not None and not upstream:
            text = ctx.stdin_text
        if ctx.stdin_file is not None and not upstream:
            self.executes(ctx.stdin_file, cwds, source)
        if text is None:
            return
        if shell:
            self.nested(text, cwds, "code piped into a shell")
        else:
            for found in backstop(text):
                self.r.add_hard_deny(f"code fed to an interpreter contains {found}: {source}")

    def change_dir(self, target: str, cwds: Cwds, source: str, index: int) -> Cwds:
        if UNKNOWN in target or target == "-":
            self.r.cwd_unknown = True
            return None
        value = target or str(home_dir())
        infos = self.resolve(value, cwds)
        if any(i is None for i in infos):
            self.r.cwd_unknown = True
            return None
        for info in infos:
            if not info.inside:
                self.r.effects.append(PathEffect("read", value, info, source, unit_index=index))
        return frozenset(i.path for i in infos)
