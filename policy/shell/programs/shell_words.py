"""Shell builtins and small system tools whose verdict follows from their arguments alone.

Their records state the options they take and, as :class:`~cairn.policy.shell.programs.record.Rule`
data, which arguments make them run code, change the shell or print the environment; the generic
judge applies the rules.  echo/printf (their output feeds ``| sh``), export/declare (variables
that change what runs), kill (``-1``), eval and trap (their arguments are code) keep handlers.
"""

from __future__ import annotations

from typing import Any

from cairn.policy.shell.programs.record import Program, program
from cairn.policy.vocab import words

__all__ = ["FAMILY", "RECORDS"]

FAMILY = "builtin"

_PRINTS_ENV = "prints every variable of the shell (values the secret filter may miss)"
_LATER = "{opt} changes how later commands run"
_SET_WORDS = """-e +e -u +u -x +x -v +v -o +o pipefail errexit nounset xtrace -eu -ex -eux -euo -exo
    -eo -uo -C +C noclobber -f +f noglob -- -euxo -xeuo -eou"""
_SHOPT_WORDS = """-s -u -q -p globstar nullglob dotglob extglob failglob nocaseglob nocasematch lastpipe
    pipefail inherit_errexit"""
_CD: dict[str, Any] = dict(
    kind="silent", flags="LPe@", rules=(("always", "silent", "low", "changes the directory", "cd"),)
)
_MAPFILE: dict[str, Any] = dict(
    kind="neutral",
    says="reads lines into an array",
    flags="t",
    valued="dnOsuCc",
    rules=(("-C", "exec", "high", "-C runs a callback as shell code for every line read"),),
)
_ALIAS: dict[str, Any] = dict(
    kind="neutral",
    says="lists aliases",
    rules=(("=", "general", "medium", "redefines what a command name runs later in this shell"),),
)
_SOURCE: dict[str, Any] = dict(
    kind="neutral",
    says="with no file",
    rules=(("operands", "exec", "high", "runs the shell file {op} in this shell", "runs-first"),),
)


#: ``kill -1`` (as a pid: ``kill -9 -1``, ``kill -- -1``; ``kill -1 PID`` too) signals every process.
_KILL_ALL = ("is:-1", "general", "high", "-1 signals every process you own", "deny")
_STOPS = ("always", "general", "medium", "stops processes")


#: export, declare, local …: alone (or with only options) they print every variable; their
#: NAME=VALUE words are assignments the walker judges (PATH=, LD_PRELOAD= ask).
_DECLARE = (
    ("-f", "general", "medium", "-f exports shell functions to child processes"),
    (
        "no-operands&!-F ^+&!=",
        "general",
        "medium",
        "prints every variable of the shell (values the secret filter may miss)",
    ),
    ("always", "silent", "low", "sets shell variables", "assigns"),
)


def _by(handler: str) -> dict[str, Any]:
    """A program whose handler judges every argument (its record states no option list)."""
    return {"handler": handler, "options_by_handler": True}


#: Programs that change the system (services, packages, users, disks): every use asks.
_SYSTEM = """shutdown reboot halt poweroff init telinit systemctl service launchctl crontab at batch mount
    umount swapon swapoff modprobe insmod rmmod sysctl useradd userdel usermod groupadd passwd
    chpasswd chsh visudo iptables nft ufw firewall-cmd apt apt-get aptitude dpkg yum dnf rpm zypper
    pacman apk brew port snap flatpak nix-env mknod setcap chattr fdisk sfdisk gdisk parted mkswap
    fsck losetup cryptsetup"""
_SYSTEM_RULE = ("always", "general", "high", "changes the system (services, packages, users, disks)")
#: Disk formatters and wipers are refused in every mode (``mkfs.ext4`` is judged as mkfs).
_WIPE_RULE = ("always", "general", "high", "formats or wipes a disk", "deny")
_NET_DIAG = ("always", "network", "medium", "contacts the network (names can carry data out)", "network")


# fmt: off
RECORDS: tuple[Program, ...] = (
    *(program(n, "system", options_by_handler=True, rules=(_SYSTEM_RULE,), ask=(n,)) for n in words(_SYSTEM)),
    *(program(n, "system", options_by_handler=True, rules=(_WIPE_RULE,), deny=(n,))
        for n in words("wipefs blkdiscard mke2fs mkfs newfs format")),
    *(program(n, "network", options_by_handler=True, rules=(_NET_DIAG,), ask=(f"{n} example.com",))
        for n in words("ping ping6 dig nslookup host traceroute tracepath mtr whois arping")),
    program("alias", flags="p", **_ALIAS, allow=("alias",), ask=("alias ls='rm -rf'",)),
    program("unalias", flags="a", **_ALIAS, allow=("unalias ll",), ask=("unalias x=y",)),
    program("compgen", kind="neutral", says="only lists completions", flags="abcdefgjksuvIEDoAGPSXV",
        valued="WFC", rules=(("-C -F -W", "exec", "high", "{opt} evaluates a string as shell code"),),
        allow=("compgen -c",), ask=("compgen -W '$(id)' x", "compgen -C ./x.sh x")),
    program("complete", kind="neutral", says="only lists completion settings", flags="p", accepts="-p --",
        rules=(
            ("other", "exec", "high", "defines code that completion runs later (-C/-F/-W evaluate strings)"),
        ),
        allow=("complete -p",), ask=("complete -C ./x.sh git",)),
    program("mapfile", **_MAPFILE, allow=("mapfile -t lines",), ask=("mapfile -C ./x.sh -c 1 lines",)),
    program("readarray", **_MAPFILE, allow=("readarray -t lines",), ask=("readarray -tC 'rm x' v",)),
    program("printenv", kind="neutral", says="prints the named variables", flags="0", long="null help version",
        rules=(("no-operands", "general", "medium", _PRINTS_ENV),), allow=("printenv HOME",),
        ask=("printenv",)),
    program("hostname", kind="neutral", says="only prints", flags="aAdfiIsyv", valued="Fb",
        long="alias all-fqdns all-ip-addresses domain fqdn long ip-address ip-addresses short yp nis help version",
        long_valued="file boot",
        rules=(("operands -F --file -b --boot", "general", "high", "NAME changes the machine's name"),),
        allow=("hostname", "hostname -f"), ask=("hostname evil",)),
    program("enable", flags="adnps", valued="f",
        rules=(
            ("-f", "exec", "high", "-f loads a shared library into the shell"),
            ("always", "general", "medium", "turns shell builtins on or off"),
        ),
        ask=("enable -f ./x.so x", "enable -n echo")),
    program("hash", kind="neutral", says="lists remembered commands", flags="rdtl", valued="p",
        rules=(("-p", "general", "medium", "-p redirects a command name to another program"),),
        allow=("hash",), ask=("hash -p ./x.sh ls",)),
    program("set", kind="silent", says="only changes shell options", options_by_handler=True,
        accepts=_SET_WORDS,
        rules=(
            ("no-args", "general", "medium", _PRINTS_ENV),
            ("--first", "silent", "low", "-- only sets positional parameters"),
            ("other", "general", "medium", _LATER),
        ),
        allow=("set -euo pipefail", "set -- a b"), ask=("set", "set -o vi")),
    program("shopt", kind="silent", says="only changes globbing options", options_by_handler=True,
        accepts=_SHOPT_WORDS, rules=(("other", "general", "medium", _LATER),), allow=("shopt -s globstar",),
        ask=("shopt -s expand_aliases",)),
    program("source", **_SOURCE, allow=("source",), ask=("source ./env.sh",)),
    program(".", **_SOURCE, allow=(), ask=(". ./env.sh",)),
    program("cd", **_CD, allow=("cd src",), ask=("cd /etc && cat passwd",)),
    program("pushd", numeric=True, plus=True, **_CD, allow=("pushd src",), ask=("pushd /etc && cat passwd",)),
    program("popd", kind="silent", numeric=True, plus=True, flags="n",
        rules=(("always", "silent", "low", "changes the directory", "cd-unknown"),), allow=(),
        ask=("popd && cat README.md",)),
    program("command", operands="command", flags="pvV",
        rules=(("-v -V", "neutral", "low", "{opt} only looks a command up"),),
        allow=("command -v git", "command ls"), ask=("command rm -r src",)),
    program("builtin", operands="command", allow=("builtin cd src",), ask=("builtin source ./x.sh",)),
    program("exec", operands="command", flags="cl", valued="a",
        rules=(
            ("no-operands", "silent", "low", "only changes file descriptors"),
            ("operands", "wrapper", "medium", "replaces the shell with {op}", "inner"),
        ),
        allow=("exec 2>&1",), ask=("exec ls",)),
    program("busybox", operands="command", allow=("busybox ls src",), ask=("busybox rm -r src",)),
    program("echo", **_by("shellbuiltins.echo"), allow=("echo hi",), ask=("echo 'rm -r src' | sh",)),
    program("printf", **_by("shellbuiltins.printf"), allow=("printf '%s' hi",), ask=("printf 'id' | sh",)),
    program("kill", options_by_handler=True, ask=("kill 123", "kill -s TERM 123"),
        deny=("kill -9 -1", "kill -- -1", "kill -1"), rules=(_KILL_ALL, _STOPS)),
    *(program(n, options_by_handler=True, rules=(_STOPS,), ask=(f"{n} -9 python",)) for n in ("pkill", "killall")),
    *(
        program(n, options_by_handler=True, rules=_DECLARE, allow=(f"{n} X=1",),
            ask=(f"{n} LD_PRELOAD=./x.so", f"{n} -p", f"{n} -f f"))
        for n in ("export", "declare", "local", "readonly", "typeset")
    ),
    program("history", options_by_handler=True, default_file="~/.bash_history", rules=(
        ("-a -w", "write", "medium", "{opt} writes the history list to {out}", "writes-first"),
        ("-r -n", "read", "low", "{opt} reads a history file", "reads-first"),
        ("always", "neutral", "low", "only changes or lists this shell's history")),
        allow=("history", "history -c"), ask=("history -w src/x", "history -aw", "history -r")),
    program("env", operands="command", dash_means="-i", assigns_first=True, flags="i0v", valued="uCS",
        long="ignore-environment null debug", long_valued="unset chdir split-string", reads_with="-C --chdir",
        rules=(
            ("unknown", "general", "high", "{opt} is not understood"),
            ("-S --split-string", "wrapper", "medium", "-S runs a command line given as one string", "code-line"),
            ("no-operands", "general", "medium", _PRINTS_ENV.replace("shell", "environment"), "assigns"),
            ("always", "wrapper", "low", "runs {op}", "inner assigns")),
        allow=("env LANG=C ls", "env -u HOME ls", "env - ls"),
        ask=("env", "env -S 'rm -r src'", "env --frob ls")),
    program("eval", options_by_handler=True,
        rules=(("always", "wrapper", "medium", "runs its arguments as shell code", "code"),), ask=("eval ls",),
        deny=("eval rm -rf /",)),
    program("trap", options_by_handler=True,
        rules=(
            ("no-args -l -p", "neutral", "low", "lists signal handlers"),
            ("always", "general", "medium", "sets code that runs later on a signal or exit", "code-first"),
        ),
        allow=("trap -l",), ask=("trap 'rm -r src' EXIT",), deny=("trap 'rm -rf /' EXIT",)),
)
# fmt: on
