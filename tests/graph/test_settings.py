"""The typed Settings: sources, precedence per key, errors naming file and key, the docs table,
and the rule that nothing else reads cairn's variables or settings files, or writes os.environ."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cairn.errors import CairnError, ConfigError
from cairn.graph.core.settings import READ_ELSEWHERE, TABLES, load_settings, settings_table
from tests.test_import_layers import source_modules

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A workspace, and an environment whose CAIRN_HOME holds the user's file."""
    ws = tmp_path / "ws"
    (ws / ".cairn").mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    return ws, home, {"CAIRN_HOME": str(home)}


def _write(ws: Path, home: Path, *, project: str = "", user: str = "") -> None:
    (ws / ".cairn" / "settings.toml").write_text(project)
    (home / "settings.toml").write_text(user)


def test_defaults_without_files_or_variables(files):
    ws, home, env = files
    s = load_settings(ws, environ=env)
    assert s.tools.profile is None and s.tools.defer_threshold == 15
    assert (s.agents.max_steps, s.agents.max_tokens) == (30, 400_000)
    assert s.sandbox.enabled and s.storage.snapshots
    assert s.user_file == home / "settings.toml" and s.project_file == ws / ".cairn" / "settings.toml"


def test_argument_beats_environment_beats_project_beats_user(files):
    ws, home, env = files
    _write(ws, home, project='[tools]\nprofile = "full"\n', user='[tools]\nprofile = "lean"\n')
    assert load_settings(ws, environ=env).tools.profile == "full"
    _write(ws, home, user='[tools]\nprofile = "lean"\n')
    assert load_settings(ws, environ=env).tools.profile == "lean"
    _write(ws, home, project='[tools]\nprofile = "full"\n')
    assert load_settings(ws, environ={**env, "CAIRN_TOOLS": "lean"}).tools.profile == "lean"
    overridden = load_settings(
        ws, environ={**env, "CAIRN_TOOLS": "lean"}, overrides={"tools": {"profile": "auto"}}
    )
    assert overridden.tools.profile == "auto"
    assert load_settings(ws, environ=env, overrides={"tools": {"profile": None}}).tools.profile == "full"


def test_project_over_user_for_budgets_and_environment_only_numbers(files):
    ws, home, env = files
    _write(ws, home, project="[agents]\nmax_steps = 7\n", user="[agents]\nmax_steps = 9\nmax_tokens = 1000\n")
    s = load_settings(ws, environ={**env, "CAIRN_CONTEXT_WINDOW": "16_384", "CAIRN_COMPACT_THRESHOLD": "0.5"})
    assert (s.agents.max_steps, s.agents.max_tokens) == (7, 1000)
    assert s.context.window == 16_384 and s.context.threshold == 0.5
    assert load_settings(ws, environ={**env, "CAIRN_SECRET_ENV": "A, B_*"}).shell.secret_env == ("A", "B_*")
    assert not load_settings(ws, environ={**env, "CAIRN_SNAPSHOTS": "off"}).storage.snapshots


def test_a_project_file_cannot_loosen_what_the_user_set(files):
    ws, home, env = files
    project = 'sandbox = "off"\nsandbox_readable = ["~/.ssh"]\nsandbox_hidden_paths = ["/srv/a"]\n'
    _write(
        ws,
        home,
        project=project + "sandbox_max_processes = 99999\n",
        user='[web_fetch]\nsummary_model = "u"\n',
    )
    s = load_settings(ws, environ=env)
    assert s.sandbox.enabled and s.sandbox.readable == () and s.sandbox.hidden_paths == ("/srv/a",)
    assert s.sandbox.max_processes < 99999
    _write(ws, home, project='[web_fetch]\nsummary_model = "p"\n[web_search]\nprovider = "searxng"\n')
    s = load_settings(ws, environ=env)
    assert s.model.summary_model is None and s.web.search is None
    _write(ws, home, user='sandbox = "off"\n')
    s = load_settings(ws, environ=env)
    assert not s.sandbox.enabled and s.sandbox.off_by == str(home / "settings.toml")
    assert not s.sandbox.as_policy().enabled


def test_rules_merge_both_files(files):
    ws, home, env = files
    _write(
        ws,
        home,
        project='[permissions]\nallow = ["bash(make)"]\n[tool_risk]\nx = "LOW"\n',
        user='[permissions]\ndeny = ["bash(curl:*)"]\n[tool_risk]\nx = "HIGH"\n',
    )
    rules = load_settings(ws, environ=env).rules()
    assert rules.allow == ("bash(make)",) and rules.deny == ("bash(curl:*)",)
    assert rules.tool_risk["x"] == "HIGH"


@pytest.mark.parametrize(
    ("where", "text", "key", "problem"),
    [
        ("project", "[agents]\nmax_steps = -1\n", "agents.max_steps", "greater than 0"),
        ("user", '[tools]\ndefer_threshold = "many"\n', "tools.defer_threshold", "integer"),
        ("user", 'tools = "lean"\n', None, "[tools] must be a table"),
        ("project", "[agents\n", None, "invalid TOML"),
        ("user", 'sandbox = "maybe"\n', None, 'sandbox must be "on" or "off"'),
        ("project", '[permissions]\nallow = "bash(ls)"\n', None, "permissions.allow must be a list"),
    ],
)
def test_errors_are_config_errors_naming_file_and_key(files, where, text, key, problem):
    ws, home, env = files
    _write(ws, home, **{where: text})
    path = ws / ".cairn" / "settings.toml" if where == "project" else home / "settings.toml"
    with pytest.raises(ConfigError) as info:
        load_settings(ws, environ=env)
    assert isinstance(info.value, CairnError)
    assert str(path) in str(info.value) and problem in str(info.value)
    if key:
        assert info.value.key == key and info.value.file == str(path)


def test_a_bad_variable_or_override_names_it(files):
    ws, _, env = files
    with pytest.raises(ConfigError, match=r"environment: CAIRN_CONTEXT_WINDOW: .*greater than 0"):
        load_settings(ws, environ={**env, "CAIRN_CONTEXT_WINDOW": "-5"})
    with pytest.raises(ConfigError, match=r"agents\.max_tokens"):
        load_settings(ws, environ=env, overrides={"agents": {"max_tokens": 0}})
    with pytest.raises(ConfigError, match="unknown settings table"):
        load_settings(ws, environ=env, overrides={"agent": {"max_tokens": 1}})


def test_the_docs_table_is_generated_from_the_model():
    text = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert settings_table() in text, (
        "docs/settings.md is out of date: paste the output of "
        "`python -c 'from cairn.graph.core.settings import settings_table; print(settings_table())'`"
    )
    for table, model in TABLES.items():
        for name, field in model.model_fields.items():
            if isinstance(field.json_schema_extra, dict):
                assert field.description, f"{table}.{name} has no description"
                assert f"`{table}.{name}`" in text
    for var in READ_ELSEWHERE:
        assert f"`{var}`" in text


def _reads_and_writes() -> tuple[set[tuple[str, str]], list[str], list[str]]:
    """(variable, module) of every literal ``os.environ[...]`` / ``os.environ.get`` / ``os.getenv``
    read of a CAIRN_ variable; modules naming ``settings.toml``; every write to os.environ."""
    reads: set[tuple[str, str]] = set()
    files: list[str] = []
    writes: list[str] = []
    for module, path in source_modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value == "settings.toml":
                files.append(module)
            target = _environ_use(node)
            if target is None:
                continue
            kind, arg = target
            if kind == "write":
                writes.append(f"{module}:{node.lineno}")
            elif isinstance(arg, ast.Constant) and str(arg.value).startswith("CAIRN_"):
                reads.add((str(arg.value), module))
    return reads, files, writes


def _is_environ(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and _is_os(node.value)


def _is_os(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "os"


def _environ_use(node: ast.AST) -> tuple[str, ast.AST | None] | None:
    if isinstance(node, ast.Subscript) and _is_environ(node.value):
        return ("write" if isinstance(node.ctx, ast.Store | ast.Del) else "read"), node.slice
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        func, first = node.func, (node.args[0] if node.args else None)
        if _is_environ(func.value):
            if func.attr in ("update", "setdefault", "pop", "popitem", "clear", "__setitem__"):
                return "write", first
            return ("read", first) if func.attr == "get" else None
        if _is_os(func.value) and func.attr in ("putenv", "unsetenv"):
            return "write", first
        if _is_os(func.value) and func.attr == "getenv":
            return "read", first
    return None


def test_cairn_variables_are_read_once_files_by_one_reader_and_environ_never_written():
    reads, files, writes = _reads_and_writes()
    allowed = {(var, module) for var, (module, _) in READ_ELSEWHERE.items()}
    assert reads - allowed == set(), (
        "read these through cairn.graph.core.settings (or list them in READ_ELSEWHERE)"
    )
    modules = source_modules()
    for var, (module, _) in READ_ELSEWHERE.items():  # (cairn.userdirs reads its variable by name)
        assert var in modules[module].read_text(encoding="utf-8"), f"{module} no longer reads {var}"
    declared = {env for model in TABLES.values() for f in model.model_fields.values()
                if isinstance(f.json_schema_extra, dict) for env in f.json_schema_extra["env"]}  # fmt: skip
    assert declared & set(READ_ELSEWHERE) == set(), "a variable is read in two places"
    assert sorted(set(files)) == ["cairn.settings_files"]
    assert writes == []


def test_the_audit_sees_reads_and_writes():
    sample = 'import os\nos.environ["X"] = "1"\nos.environ.get("CAIRN_Y")\nos.getenv("CAIRN_Z")\n'
    found = [_environ_use(n) for n in ast.walk(ast.parse(sample))]
    kinds = [(kind, getattr(arg, "value", None)) for kind, arg in filter(None, found)]
    assert ("write", "X") in kinds and ("read", "CAIRN_Y") in kinds and ("read", "CAIRN_Z") in kinds
