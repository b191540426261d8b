"""The command table: what one simple command does, judged from its name and arguments.

``classify(argv)`` returns a :class:`Classified` with a category, a risk and the words that
name paths it reads or writes; special handlers for wrappers, shells, git, find, sed and
friends live in sibling modules.  Unknown commands are ``general`` / HIGH.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from policy.levels import RiskLevel
from policy.shell.options import split_args
from policy.shell.result import Classified
from policy.vocab import words

__all__ = ["classify", "command_name"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH
Handler = Callable[[str, list[str]], Classified]

_SYSTEM_BIN = ("/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/", "/opt/homebrew/bin/")

NEUTRAL = words(
    """true false : test [ sleep wait type hash shift exit return break continue unset read getopts seq
    expr basename dirname pwd cal whoami id groups logname uname arch nproc uptime tty locale
    getconf clear tput jobs dirs times which whereis printenv history help let mapfile readarray
    compgen true"""
)
#: name -> (category, short options taking a value, long options taking a value)
READERS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "cat": ("read", "", ()),
    "tac": ("read", "s", ("--separator",)),
    "nl": ("read", "bdfhilnsvw", ()),
    "head": ("read", "nc", ("--lines", "--bytes")),
    "tail": ("read", "ncs", ("--lines", "--bytes", "--pid", "--sleep-interval", "--max-unchanged-stats")),
    "more": ("read", "n", ()),
    "wc": ("read", "", ("--files0-from",)),
    "od": ("read", "AjNtSw", ("--address-radix", "--skip-bytes", "--read-bytes", "--format", "--width")),
    "hexdump": ("read", "efns", ()),
    "hd": ("read", "efns", ()),
    "strings": ("read", "nte", ("--bytes", "--radix", "--encoding")),
    "file": ("read", "mfFP", ("--magic-file", "--files-from", "--separator")),
    "stat": ("list", "cf", ("--format", "--printf")),
    "md5sum": ("read", "", ()),
    "sha1sum": ("read", "", ()),
    "sha224sum": ("read", "", ()),
    "sha256sum": ("read", "", ()),
    "sha384sum": ("read", "", ()),
    "sha512sum": ("read", "", ()),
    "b2sum": ("read", "l", ()),
    "shasum": ("read", "a", ("--algorithm",)),
    "md5": ("read", "s", ()),
    "cksum": ("read", "a", ("--algorithm",)),
    "sum": ("read", "", ()),
    "cut": ("read", "bcdf", ("--bytes", "--characters", "--delimiter", "--fields", "--output-delimiter")),
    "paste": ("read", "d", ("--delimiters",)),
    "join": ("read", "ajeot12", ()),
    "comm": ("read", "", ("--output-delimiter",)),
    "diff": (
        "read",
        "CUIxXSFLW",
        (
            "--label",
            "--ignore-matching-lines",
            "--exclude",
            "--exclude-from",
            "--starting-file",
            "--context",
            "--unified",
            "--width",
            "--color",
        ),
    ),
    "cmp": ("read", "in", ("--ignore-initial", "--bytes")),
    "column": ("read", "cstNRHWOlo", ()),
    "fold": ("read", "w", ("--width",)),
    "fmt": ("read", "wpg", ("--width", "--prefix", "--goal")),
    "expand": ("read", "t", ("--tabs",)),
    "unexpand": ("read", "t", ("--tabs",)),
    "rev": ("read", "", ()),
    "base32": ("read", "w", ("--wrap",)),
    "basenc": ("read", "w", ("--wrap",)),
    "zcat": ("read", "", ()),
    "gzcat": ("read", "", ()),
    "bzcat": ("read", "", ()),
    "xzcat": ("read", "", ()),
    "zstdcat": ("read", "", ()),
    "lzcat": ("read", "", ()),
    "readlink": ("list", "", ()),
    "realpath": ("list", "", ("--relative-to", "--relative-base")),
    "ls": (
        "list",
        "IwT",
        (
            "--ignore",
            "--hide",
            "--width",
            "--tabsize",
            "--format",
            "--sort",
            "--time",
            "--time-style",
            "--color",
            "--quoting-style",
            "--indicator-style",
            "--block-size",
        ),
    ),
    "dir": ("list", "IwT", ()),
    "vdir": ("list", "IwT", ()),
    "du": (
        "list",
        "dBtX",
        (
            "--max-depth",
            "--block-size",
            "--threshold",
            "--exclude",
            "--exclude-from",
            "--time-style",
            "--files0-from",
        ),
    ),
    "df": ("list", "tBxF", ("--type", "--block-size", "--exclude-type", "--output")),
    "numfmt": ("read", "", ()),
    "look": ("read", "t", ()),
    "json_pp": ("read", "", ()),
    "bat": (
        "read",
        "lHrmp",
        (
            "--language",
            "--highlight-line",
            "--line-range",
            "--map-syntax",
            "--theme",
            "--style",
            "--tabs",
            "--wrap",
            "--color",
            "--decorations",
            "--paging",
            "--pager",
        ),
    ),
    "pr": ("read", "hwloNn", ()),
    "nm": ("read", "t", ()),
    "objdump": ("read", "jM", ()),
    "readelf": ("read", "xpR", ()),
    "size": ("read", "", ()),
    "lsattr": ("list", "", ()),
    "namei": ("list", "", ()),
    "getfacl": ("list", "", ()),
}
LISTERS_NO_PATHS = words(
    """ps pgrep pidof free top htop vmstat iostat lsblk lscpu lsusb lspci lsmod who w last lastlog
    netstat ss ifconfig route arp ulimit umask nvidia-smi sw_vers system_profiler"""
)
#: Runs project code (tests, builds): MEDIUM, never auto-allowed without a rule.
PROJECT_RUNNERS = words(
    """make gmake cmake ninja meson bazel buck mvn gradle ant sbt lein rake pytest py.test tox nox jest
    vitest mocha ava karma tsc rspec phpunit dotnet swift mix rebar3 stack cabal ctest pre-commit
    playwright cypress"""
)
#: Subcommand-style tools whose build/test subcommands run project code.
PROJECT_SUBCOMMANDS = {
    "cargo": {"build", "test", "run", "check", "clippy", "bench", "doc", "fmt", "tree", "metadata"},
    "go": {"build", "test", "run", "vet", "generate", "list", "fmt", "doc", "env", "version", "mod"},
    "npm": {
        "test",
        "t",
        "run",
        "run-script",
        "start",
        "stop",
        "restart",
        "exec",
        "ls",
        "list",
        "outdated",
        "view",
        "audit",
    },
    "yarn": {"test", "run", "start", "build", "lint", "why", "list", "info"},
    "pnpm": {"test", "run", "start", "build", "lint", "why", "list", "ls", "exec"},
    "bun": {"test", "run", "build"},
    "deno": {"test", "check", "lint", "fmt", "task", "bench"},
    "uv": {"run", "sync", "lock", "build", "tree"},
    "poetry": {"run", "build", "check", "show", "lock"},
    "hatch": {"run", "test", "build", "fmt"},
    "pdm": {"run", "build", "list"},
}
INSTALL_SUBCOMMANDS = {
    "install",
    "i",
    "add",
    "ci",
    "update",
    "upgrade",
    "remove",
    "uninstall",
    "get",
    "publish",
    "login",
    "link",
    "unlink",
    "global",
    "dlx",
    "create",
    "init",
    "x",
}
INTERPRETERS = words(
    """python python2 python3 pypy pypy3 node nodejs deno bun perl ruby php lua luajit tclsh wish
    Rscript R julia osascript jshell groovy scala kotlin ts-node tsx irb erl elixir iex swift-repl
    ghci guile racket sbcl clisp gawk-script"""
)
SHELLS = {
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "ash",
    "fish",
    "tcsh",
    "csh",
    "busybox-sh",
    "rbash",
    "yash",
}
NETWORK = words(
    """curl wget nc ncat netcat socat telnet ssh scp sftp rsync ftp tftp aria2c http https xh httpie
    lynx w3m links elinks openssl gh hub aws gcloud az kubectl helm docker podman terraform vagrant
    ansible ansible-playbook"""
)
NET_DIAG = {"ping", "ping6", "dig", "nslookup", "host", "traceroute", "tracepath", "mtr", "whois", "arping"}
PRIVILEGE = {"sudo", "su", "doas", "pkexec", "run0", "sudoedit"}
SYSTEM_HIGH = words(
    """shutdown reboot halt poweroff init telinit systemctl service launchctl crontab at batch mount
    umount swapon swapoff modprobe insmod rmmod sysctl useradd userdel usermod groupadd passwd
    chpasswd chsh visudo iptables nft ufw firewall-cmd apt apt-get aptitude dpkg yum dnf rpm zypper
    pacman apk brew port snap flatpak nix-env mknod setcap chattr fdisk sfdisk gdisk parted mkswap
    fsck losetup cryptsetup"""
)
DISK_WIPERS = {"wipefs", "blkdiscard", "mke2fs", "mkfs", "newfs", "format"}


def command_name(word: str) -> tuple[str, bool]:
    """The command's name for the table, and whether it was spelled as a path outside system dirs."""
    if "/" not in word:
        return word, False
    for prefix in _SYSTEM_BIN:
        if word.startswith(prefix) and "/" not in word[len(prefix) :]:
            return word[len(prefix) :], False
    return os.path.basename(word), True


def _c(category: str, risk: RiskLevel, reason: str, **kw: object) -> Classified:
    return Classified(category=category, risk=risk, reason=reason, **kw)  # type: ignore[arg-type]


def classify(argv: list[str]) -> Classified:
    """Classify one simple command (already expanded and split)."""
    if not argv:
        return _c("neutral", LOW, "no command")
    word = argv[0]
    name, by_path = command_name(word)
    args = argv[1:]
    if by_path:
        return _c("general", HIGH, f"runs the program {word} by path", exec_files=[word])
    if (args == ["--version"] and name not in PRIVILEGE) or (
        args == ["-V"] and name in SHELLS | INTERPRETERS
    ):
        return _c("neutral", LOW, f"{name} {args[0]} only prints a version")
    from policy.shell.handlers import HANDLERS

    handler = HANDLERS.get(name)
    if handler is not None:
        return handler(name, args)
    if name.startswith("mkfs") or name in DISK_WIPERS:
        return _c(
            "general", HIGH, f"{name} formats or wipes a disk", hard_deny=[f"{name} formats or wipes a disk"]
        )
    if name in NEUTRAL:
        return _c("neutral", LOW, f"{name} changes nothing")
    if name in READERS:
        return reader(name, args)
    if name in LISTERS_NO_PATHS:
        return _c("list", LOW, f"{name} only shows system state")
    if name in PROJECT_RUNNERS:
        return _c("general", MEDIUM, f"{name} runs project code (build/test)")
    if name in PROJECT_SUBCOMMANDS:
        return project_tool(name, args)
    if re.fullmatch(r"python[0-9.]*|pypy[0-9.]*", name) or name in INTERPRETERS:
        from policy.shell.wrappers import interpreter

        return interpreter(name, args)
    if name in SHELLS:
        from policy.shell.wrappers import shell

        return shell(name, args)
    if name in NET_DIAG:
        return _c("network", MEDIUM, f"{name} contacts the network (names can carry data out)", network=True)
    if name in SYSTEM_HIGH:
        return _c("general", HIGH, f"{name} changes the system (services, packages, users, disks)")
    return _c("general", HIGH, f"{name} is not a known read-only command")


_PATH_OPTIONS = {
    "--files0-from",
    "--exclude-from",
    "--files-from",
    "--reference",
    "--relative-to",
    "--relative-base",
    "--magic-file",
}
_PATH_SHORT = {"du": {"-X"}, "file": {"-f", "-m"}, "diff": {"-X"}}


def reader(name: str, args: list[str]) -> Classified:
    """A command whose operands are files it reads."""
    category, short, long = READERS[name]
    opts, operands = split_args(args, short, long)
    reads = list(operands)
    for opt, value in opts:
        if value and (opt in _PATH_OPTIONS or opt in _PATH_SHORT.get(name, ())):
            reads.append(value)
        if name == "bat" and opt == "--pager":
            return _c("exec", HIGH, "bat --pager runs another program")
    if name in ("ls", "dir", "vdir", "du") and not operands:
        reads.append(".")
    return _c(category, LOW, f"{name} only reads", reads=reads)


def project_tool(name: str, args: list[str]) -> Classified:
    sub = next((a for a in args if not a.startswith("-")), "")
    if (
        sub in INSTALL_SUBCOMMANDS
        or (name == "npm" and sub in ("exec", "x"))
        or (name in ("pnpm", "bun") and sub == "x")
    ):
        return _c(
            "network",
            HIGH,
            f"{name} {sub} installs or runs packages (downloads code, runs install scripts)",
            network=True,
        )
    if name in ("uv", "poetry", "hatch", "pdm") and sub == "run":
        rest = args[args.index(sub) + 1 :]
        while rest and rest[0].startswith("-"):
            rest = rest[1:]
        if rest:
            return _c(
                "general", MEDIUM, f"{name} run executes {rest[0]} in the project environment", inner=rest
            )
    if name == "uv" and sub in ("pip", "tool", "add", "remove", "python", "venv", "init", "publish"):
        return _c("network", HIGH, f"uv {sub} installs or changes packages", network=True)
    if sub in PROJECT_SUBCOMMANDS[name] or (
        name in ("yarn", "pnpm", "bun") and sub and sub not in INSTALL_SUBCOMMANDS
    ):
        return _c("general", MEDIUM, f"{name} {sub} runs project code (build/test scripts)")
    return _c("general", HIGH, f"{name} {sub or ''} is not a known read-only command".replace("  ", " "))
