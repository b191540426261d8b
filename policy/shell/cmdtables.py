"""The command tables: which commands only read, list, run project code, touch the network...

Programs with a record (:mod:`cairn.policy.shell.programs`) are judged from it; these tables
are the facts about programs that have none.
"""

from __future__ import annotations

from cairn.policy.shell.programs import records
from cairn.policy.vocab import words

__all__ = [
    "INTERPRETERS",
    "LISTERS_NO_PATHS",
    "NEUTRAL",
    "SHELLS",
    "SYSTEM_BIN",
    "SYSTEM_STATE",
    "VERSION_SAFE",
]

SYSTEM_BIN = ("/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/", "/opt/homebrew/bin/")

NEUTRAL = words(
    """true false : test [ sleep wait type shift exit return break continue unset read getopts seq
    expr basename dirname pwd cal whoami id groups logname uname arch nproc uptime tty locale
    getconf clear tput jobs dirs times which whereis help let"""
)
#: Listers of system state whose options only change what is shown.
SYSTEM_STATE = words(
    "ps pgrep pidof free top htop vmstat iostat lsblk lscpu lsusb lspci lsmod who w last lastlog netstat ss"
)
LISTERS_NO_PATHS = SYSTEM_STATE | words("ifconfig route arp ulimit umask nvidia-smi sw_vers system_profiler")
#: Interpreters and shells: from their records (``programs/interpreters.py``).
INTERPRETERS = frozenset(r.name for r in records() if r.handler == "interp.interpreter")
SHELLS = frozenset(r.name for r in records() if r.handler == "interp.shell")
#: Programs known to print their version (``X --version`` / ``X -V``) without reading project
#: files first.  Launchers that read the project before they answer are left out on purpose:
#: cargo/rustc/rustup (rust-toolchain.toml installs and runs a toolchain), go (go.mod's
#: toolchain line), yarn (.yarnrc.yml yarnPath runs a project file), mvn (.mvn/), gradle and
#: sbt (project wrappers and launchers), npm/pnpm/npx (.npmrc, corepack), bundle, poetry...
VERSION_SAFE = words(
    """git python python2 python3 pypy pypy3 node nodejs perl ruby php lua luajit bash sh zsh
    dash ksh fish tcsh gcc g++ cc c++ clang clang++ ld make gmake cmake ninja java javac jq yq
    gojq rg fd fdfind bat batcat grep egrep fgrep sed gsed awk gawk mawk tar gzip bzip2 xz zstd
    ls cat head tail wc sort uniq cut tr diff cmp find xargs less more file stat du df date
    tree sqlite3 psql mysql redis-cli curl wget ssh rsync openssl gpg docker podman kubectl
    helm pip pip3 pipx ruff black shellcheck shfmt hadolint jless htop tmux vim nvim nano"""
)
