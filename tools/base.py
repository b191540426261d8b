"""The tool contract every cairn tool follows.

A tool is a small class: a name, a description, a pydantic ``args_schema`` whose
every field has a description, some metadata the policy and the graph read
(``risk_level``, ``read_only``, ``plan_mode``, ``actions``, ``path_arg``,
``profiles``, ``lean_fields``, ``core``, ``counted``, ``concurrency_safe``,
``destructive``, ``aliases``, ``search_hint``) and a ``run`` method.  These facts are stated on the tool and nowhere
else: the policy's risk table and the graph's tool sets are derived from them.  Callers
use ``execute``, which validates the arguments and turns every failure into
``ToolResult(error=...)``: a tool never raises at its boundary.

``ToolResult.output`` is what the model reads, ``display`` the one line a person
sees, ``metadata`` rich data (a diff, undo information, an image) for the CLI
and notebooks that never reaches the model.
"""

from __future__ import annotations

import json
import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cairn.tools.file_ops.names import escape_data, escape_text
from cairn.tools.services import ToolServices
from cairn.tools.workspace import Workspace

if TYPE_CHECKING:
    from cairn.tools.shell.sandbox.spec import SandboxSpec


class RiskLevel(StrEnum):
    """How much a call can hurt: LOW runs, MEDIUM and HIGH ask (in the default mode)."""

    LOW = "LOW"
    MEDIUM = "MEDIUM"
    HIGH = "HIGH"


class ToolResult(BaseModel):
    """What a tool returns. Exactly one of ``output``/``error`` carries the answer.

    ``output`` may be a string or a list of LangChain content blocks (used for
    images); ``error`` set means the call failed and the model is told why.
    """

    model_config = ConfigDict(extra="forbid")

    output: str | list[dict[str, Any]] = Field(default="", description="Text for the model.")
    display: str = Field(default="", description="One-line summary for a person.")
    error: str | None = Field(default=None, description="Why the call failed, for the model.")
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Structured data for people (diff, undo); never sent."
    )

    @property
    def ok(self) -> bool:
        return self.error is None

    @classmethod
    def fail(cls, error: str, *, display: str = "", **metadata: Any) -> ToolResult:
        return cls(error=error, display=display or error.splitlines()[0][:200], metadata=metadata)

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe dict (for the journal): metadata a tool filled with arbitrary objects
        is stringified rather than allowed to fail after the tool has already run."""
        try:
            return self.model_dump(mode="json")
        except Exception:
            data = self.model_dump(mode="python", exclude={"metadata"})
            data["metadata"] = json.loads(json.dumps(self.metadata, default=str))
            return json.loads(json.dumps(data, default=str))

    def escaped(self) -> ToolResult:
        """This result with every lone surrogate (a file name's undecodable byte) written as an
        escape, ``\\xff``: what leaves a tool always encodes as UTF-8 (see ``file_ops.names``)."""
        fields = (self.output, self.display, self.error, self.metadata)
        safe = escape_data(fields)
        if safe == fields:
            return self
        output, display, error, metadata = safe
        return ToolResult(output=output, display=display, error=error, metadata=metadata)

    def model_text(self) -> str | list[dict[str, Any]]:
        """The content the model sees for this result."""
        if self.error is not None:
            return f"Error: {self.error}"
        return self.output


ProgressCallback = Callable[[str], None]


@dataclass
class ToolContext:
    """Per-call runtime services a tool may use.

    ``cancel`` is set when the person (Ctrl-C) or the harness stops the call; long
    running tools poll it.  ``on_progress`` receives short progress lines (the
    CLI shows them live).  ``call_id`` identifies the call for journaling/logs.
    """

    call_id: str = ""
    cancel: threading.Event = field(default_factory=threading.Event)
    on_progress: ProgressCallback | None = None
    #: The risk the policy assigned to this call ("LOW"/"MEDIUM"/"HIGH"), if known.
    risk: str | None = None
    #: The OS sandbox a shell command runs in, filled by the graph from the policy's verdict
    #: (``None``: no sandbox, as for direct tool use).  Tools never import the policy.
    sandbox: SandboxSpec | None = None
    #: The session's task list for this turn (``tool_execution`` shares one list between the
    #: turn's calls; task tools replace its items in place).  ``None`` outside the graph.
    tasks: list[dict[str, Any]] | None = None
    #: Whether read_file and edit_file number the lines they show (``cat -n``).  The lean profile turns it off:
    #: Qwen2.5-Coder-1.5B read ``     1<tab>2.4.1`` as version 1.4.1 in 3 of 5 samples, and wrote it.
    line_numbers: bool = True

    def progress(self, line: str) -> None:
        if self.on_progress is not None:
            try:
                self.on_progress(line)
            except Exception:  # a broken display must never break a tool
                pass


@dataclass(frozen=True)
class ToolAction:
    """The facts of one value of a tool's ``action`` argument (``memory`` view/add/remove).

    A tool with ``actions`` is judged per action: the action's risk replaces the tool's
    ``risk_level``, plan mode allows only actions with ``plan_mode``, and accept-edits mode runs
    actions that edit only an ordinary workspace file (``accept_edits``).  ``why`` is the
    verdict's reason (``"changes .gitignore"``).
    """

    risk: RiskLevel
    why: str
    plan_mode: bool = False
    accept_edits: bool = False


#: Tool profiles (``cairn.graph.core.profiles``): ``full`` offers every tool, ``lean`` a small core.
FULL_PROFILE = frozenset({"full"})
LEAN_AND_FULL = frozenset({"lean", "full"})


class ArgsModel(BaseModel):
    """Base for tool argument schemas: unknown keys are errors the model can fix."""

    model_config = ConfigDict(extra="forbid")


class Tool(ABC):
    """Base class for cairn tools. Subclasses set the class attributes and ``run``."""

    name: ClassVar[str]
    description: ClassVar[str]
    args_schema: ClassVar[type[BaseModel]]
    risk_level: ClassVar[RiskLevel] = RiskLevel.MEDIUM
    read_only: ClassVar[bool] = False
    concurrency_safe: ClassVar[bool] = False
    destructive: ClassVar[bool] = False
    aliases: ClassVar[tuple[str, ...]] = ()
    search_hint: ClassVar[str] = ""
    #: Longest text the model receives from one call (observation truncates beyond it).
    max_output_chars: ClassVar[int] = 30_000
    #: Idempotent tools may be retried automatically after a crash interrupted them.
    idempotent: ClassVar[bool] = False
    #: Whether plan mode offers the tool (``None``: when ``read_only``).  Plan mode binds the
    #: tool and the policy allows its calls there; with ``actions``, only the actions marked
    #: ``plan_mode``; ``bash`` is offered and the policy allows only read-only commands.  Read
    #: with :func:`plan_allows`, the one predicate the graph and the policy share.
    plan_mode: ClassVar[bool | None] = None
    #: Per-action facts, keyed by the value of the ``action`` argument (see :class:`ToolAction`).
    actions: ClassVar[Mapping[str, ToolAction]] = MappingProxyType({})
    #: The argument holding the path the tool reads (``read_only``) or writes; the policy judges it.
    path_arg: ClassVar[str | None] = None
    #: The tool profiles that offer the tool (``cairn.graph.core.profiles``).
    profiles: ClassVar[frozenset[str]] = FULL_PROFILE
    #: The arguments the lean profile's schema shows (the tool still accepts the others); empty: all.
    lean_fields: ClassVar[tuple[str, ...]] = ()
    #: Bound to every model call even when the session defers tools (``cairn.graph.core.tool_selection``).
    core: ClassVar[bool] = False
    #: Counts toward the number of tools that makes a session defer them.  Not counted: tools that
    #: exist only when configured, and the companions of a counted tool (one family, one count).
    counted: ClassVar[bool] = True

    def __init__(self, workspace: Workspace, services: ToolServices | None = None) -> None:
        self.workspace = workspace
        self.services = services if services is not None else ToolServices(workspace)

    # -- to implement ---------------------------------------------------------------
    @classmethod
    def available(cls, services: ToolServices) -> bool:
        """Whether a session with these services offers the tool (``web_search`` needs a provider)."""
        return True

    @abstractmethod
    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        """Do the work. ``params`` is an instance of ``args_schema``."""

    def preview(self, params: Any, ctx: ToolContext) -> ToolResult | None:
        """Dry run: what the call would do (e.g. the diff), with no side effect.

        Returns ``None`` when the tool has no preview.
        """
        return None

    # -- provided ---------------------------------------------------------------------
    @property
    def supports_dry_run(self) -> bool:
        return type(self).preview is not Tool.preview

    def parse(self, args: Mapping[str, Any]) -> BaseModel:
        """Validate raw arguments; raises ``ValidationError``."""
        return self.args_schema.model_validate(without_null_optionals(self.args_schema, args))

    def execute(self, args: Mapping[str, Any], ctx: ToolContext | None = None) -> ToolResult:
        """Validate and run; every failure comes back as ``ToolResult(error=...)``."""
        ctx = ctx or ToolContext()
        try:
            params = self.parse(args)
        except ValidationError as exc:
            return ToolResult.fail(format_validation_error(self.name, exc, self.args_schema.model_fields))
        try:
            return self.run(params, ctx).escaped()
        except Exception as exc:  # errors are data at the tool boundary
            return ToolResult.fail(escape_text(f"{self.name} failed: {type(exc).__name__}: {exc}"))

    def dry_run(self, args: Mapping[str, Any], ctx: ToolContext | None = None) -> ToolResult | None:
        """Validated preview; ``None`` if the tool has none, an error result if args are bad."""
        if not self.supports_dry_run:
            return None
        ctx = ctx or ToolContext()
        try:
            params = self.parse(args)
        except ValidationError as exc:
            return ToolResult.fail(format_validation_error(self.name, exc, self.args_schema.model_fields))
        try:
            preview = self.preview(params, ctx)
        except Exception as exc:
            return ToolResult.fail(escape_text(f"{self.name} preview failed: {type(exc).__name__}: {exc}"))
        return preview.escaped() if preview is not None else None

    def openai_schema(self) -> dict[str, Any]:
        """The OpenAI function-calling schema for ``bind_tools``.

        Its ``parameters`` are shared by every tool with the same ``args_schema``
        (``parameters_schema``): read them, never change them in place.
        """
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters_schema(self.args_schema),
            },
        }


def plan_allows(tool: Tool | type[Tool], args: Mapping[str, Any] | None = None) -> bool:
    """Whether plan mode offers ``tool`` (``args`` omitted) or allows a call with ``args``.

    The one plan-mode predicate: the graph binds the tools it offers, the policy refuses the
    calls it does not allow.  The policy refines what it allows further, call by call: a
    ``bash`` command only when it is read-only.  Works on classes and on instances (wrapped
    LangChain and MCP tools set their facts per instance).
    """
    offered = tool.plan_mode
    if offered is None:
        offered = tool.read_only
    if not offered or args is None or not tool.actions:
        return bool(offered)
    action = tool.actions.get(str(args.get("action")))
    return action is not None and action.plan_mode


def call_risk(tool: Tool | type[Tool], args: Mapping[str, Any] | None = None) -> RiskLevel:
    """The risk of a call before the policy looks at its paths or command: its action's, else the tool's."""
    if args is not None and tool.actions:
        action = tool.actions.get(str(args.get("action")))
        if action is not None:
            return action.risk
    return tool.risk_level


_PARAMETERS: weakref.WeakKeyDictionary[type, dict[str, Any]] = weakref.WeakKeyDictionary()


def parameters_schema(args_schema: type[BaseModel]) -> dict[str, Any]:
    """``args_schema``'s JSON schema without its title, built once per class.

    Building it (pydantic's ``model_json_schema``) costs ~0.3 ms a tool; a session asks for
    every tool's schema for its budget and again for each model binding, so it is a fact
    of the class, computed on first use.  The dict is shared: callers must not mutate it.
    """
    params = _PARAMETERS.get(args_schema)
    if params is None:
        params = args_schema.model_json_schema()
        params.pop("title", None)
        _PARAMETERS[args_schema] = params
    return params


def without_null_optionals(schema: type[BaseModel], args: Mapping[str, Any]) -> dict[str, Any]:
    """``args`` without the ``null`` values of optional arguments that do not take ``None``.

    ``null`` there means "not given": OpenAI's strict mode sends it for every optional argument,
    and small models write ``"glob": null`` in the calls they print as text.  An argument whose
    type admits ``None`` keeps it (``None`` may mean something other than the default).
    """
    fields = {**schema.model_fields, **{f.alias: f for f in schema.model_fields.values() if f.alias}}
    return {
        key: value
        for key, value in args.items()
        if value is not None or key not in fields or fields[key].is_required() or _admits_none(fields[key])
    }


def _admits_none(field: Any) -> bool:
    import types
    import typing

    annotation = field.annotation
    if annotation is Any or annotation is None or annotation is type(None):
        return True
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return type(None) in typing.get_args(annotation)
    return False


def format_validation_error(tool_name: str, exc: ValidationError, fields: Collection[str] = ()) -> str:
    """A validation error the model can act on: which field, what was wrong, what was given, and
    for an unknown argument the one of ``fields`` (the tool's own) it most likely meant (the 1.5B
    model wrote grep's ``path`` as ``file_path``, three times over)."""
    lines = [f"Invalid arguments for {tool_name}:"]
    for err in exc.errors():
        loc = ".".join(str(p) for p in err.get("loc", ())) or "(arguments)"
        given = err.get("input")
        shown = repr(given)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        if err.get("type") == "missing":
            lines.append(f"- {loc}: required field is missing")
        elif err.get("type") == "extra_forbidden":
            meant = _meant_field(loc, fields)
            hint = f"; the argument is `{meant}`" if meant else ""
            lines.append(f"- {loc}: unknown argument (given {shown}){hint}")
        else:
            lines.append(f"- {loc}: {err.get('msg')} (given {shown})")
    lines.append("Fix the arguments and call the tool again.")
    return "\n".join(lines)


def _meant_field(name: str, fields: Collection[str]) -> str | None:
    """The tool's field an unknown argument name most likely stands for (``file_path`` → ``path``)."""
    import difflib

    ends = [f for f in fields if name.endswith(f) or f.endswith(name)]
    close = ends or difflib.get_close_matches(name, list(fields), n=1, cutoff=0.6)
    return close[0] if close else None
