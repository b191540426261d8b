"""Skills: folders with a ``SKILL.md`` (the Agent Skills layout of Claude Code, Codex, deepagents).

    .cairn/skills/<name>/SKILL.md        (the project's; wins over a user skill of the same name)
    <user config dir>/skills/<name>/SKILL.md

``SKILL.md`` starts with YAML front matter (``name``, ``description``) followed by the
instructions.  The system prompt lists names and descriptions (bounded); ``list_skills`` and
``read_skill(name, file=None)`` load one on demand, including files beside ``SKILL.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.frontmatter import split_front_matter
from cairn.tools.services import ToolServices
from cairn.tools.userdirs import user_config_dir
from cairn.tools.workspace import Workspace

__all__ = ["ListSkillsTool", "ReadSkillTool", "Skill", "discover_skills", "skills_prompt"]

MAX_DESCRIPTION = 300
MAX_PROMPT_CHARS = 4_000
MAX_SKILL_CHARS = 60_000


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    folder: Path
    source: str  # "project" or "user"

    @property
    def path(self) -> Path:
        return self.folder / "SKILL.md"


def skill_dirs(workspace: Workspace) -> list[tuple[Path, str]]:
    return [(workspace.root / ".cairn" / "skills", "project"), (user_config_dir() / "skills", "user")]


def discover_skills(workspace: Workspace) -> list[Skill]:
    """Every skill, the project's first; a name defined twice keeps the first."""
    found: dict[str, Skill] = {}
    for base, source in skill_dirs(workspace):
        if not base.is_dir():
            continue
        for skill_md in sorted(base.glob("*/SKILL.md")):
            try:
                meta, body = split_front_matter(skill_md.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
            name = str(meta.get("name") or skill_md.parent.name).strip()
            first_line = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
            description = " ".join(str(meta.get("description") or first_line).split())[:MAX_DESCRIPTION]
            found.setdefault(name, Skill(name, description, skill_md.parent, source))
    return list(found.values())


def skills_prompt(skills: list[Skill], max_chars: int = MAX_PROMPT_CHARS) -> str:
    """The system prompt's list of skills: one line each, cut at ``max_chars``."""
    if not skills:
        return ""
    lines = [
        "Skills hold instructions for particular tasks. When one fits the task, load it with "
        "read_skill(name) first and follow it."
    ]
    used = len(lines[0])
    for index, skill in enumerate(skills):
        line = f"- {skill.name}: {skill.description}"
        if used + len(line) > max_chars:
            lines.append(f"- ... and {len(skills) - index} more (list_skills shows all)")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


class ListSkillsArgs(ArgsModel):
    pass


class ReadSkillArgs(ArgsModel):
    name: str = Field(description="The skill's name, as listed.")
    file: str | None = Field(
        default=None, description="A file inside the skill's folder (relative path); default SKILL.md."
    )


class _SkillTool(Tool):
    risk_level = RiskLevel.LOW
    read_only = True
    plan_mode = True
    counted = False  # registered only when skills exist
    concurrency_safe = True
    idempotent = True

    @classmethod
    def available(cls, services: ToolServices) -> bool:
        """Offered only when at least one skill is installed."""
        return bool(discover_skills(services.workspace))

    def skills(self) -> list[Skill]:
        return discover_skills(self.workspace)


class ListSkillsTool(_SkillTool):
    name = "list_skills"
    description = "List the available skills (name, description, files) that read_skill can load."
    args_schema = ListSkillsArgs
    aliases = ("ListSkills",)
    search_hint = "skills instructions playbooks"

    def run(self, params: ListSkillsArgs, ctx: ToolContext) -> ToolResult:
        skills = self.skills()
        if not skills:
            return ToolResult(output="No skills are installed.", display="no skills")
        lines = []
        for skill in skills:
            extra = sorted(
                str(p.relative_to(skill.folder))
                for p in skill.folder.rglob("*")
                if p.is_file() and p.name != "SKILL.md"
            )[:20]
            files = f" (files: {', '.join(extra)})" if extra else ""
            lines.append(f"- {skill.name} [{skill.source}]: {skill.description}{files}")
        return ToolResult(output="\n".join(lines), display=f"{len(skills)} skills")


class ReadSkillTool(_SkillTool):
    name = "read_skill"
    core = True
    description = (
        "Load a skill's instructions (its SKILL.md) by name, or with `file` another file from the "
        "skill's folder (a script, a template, a reference document)."
    )
    args_schema = ReadSkillArgs
    aliases = ("Skill", "ReadSkill")
    search_hint = "skill load instructions"

    def run(self, params: ReadSkillArgs, ctx: ToolContext) -> ToolResult:
        skills = {s.name: s for s in self.skills()}
        skill = skills.get(params.name) or next(
            (s for n, s in skills.items() if n.lower() == params.name.lower()), None
        )
        if skill is None:
            known = ", ".join(skills) or "none"
            return ToolResult.fail(f"There is no skill {params.name!r}. Available skills: {known}.")
        folder = skill.folder.resolve()
        target = (folder / (params.file or "SKILL.md")).resolve()
        if not target.is_relative_to(folder):
            return ToolResult.fail(f"{params.file!r} is outside the skill's folder; give a path inside it.")
        if not target.is_file():
            return ToolResult.fail(f"The skill {skill.name!r} has no file {params.file!r}.")
        text = target.read_text(encoding="utf-8", errors="replace")
        if len(text) > MAX_SKILL_CHARS:
            text = text[:MAX_SKILL_CHARS] + "\n[... truncated ...]"
        shown = target.relative_to(folder)
        header = f"Skill {skill.name} ({shown}, folder {skill.folder}):\n\n"
        return ToolResult(output=header + text, display=f"skill {skill.name}: {shown}")
