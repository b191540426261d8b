"""Runs inside the sandbox: a TCP proxy address on the sandbox's own loopback, relayed to cairn.

``python -I -S -c SOURCE SOCKET -- COMMAND...``: listen on ``127.0.0.1`` (an ephemeral port
of the sandbox's private network namespace), point the usual proxy variables at it, run
COMMAND as a child and relay each accepted connection to the Unix socket ``SOCKET`` (the
egress proxy's lane, bound into the sandbox).  Exits as COMMAND exits.

Standard library only, and no cairn import: the source is handed to the sandbox's Python with
``-c``, so cairn's install location need not be visible inside the sandbox.  Signals to the
process group reach COMMAND directly; the bridge ignores them and follows COMMAND's exit.
"""

import os
import signal
import socket
import sys
import threading

#: Proxy variables set for the command: the common ones, and the package managers' own names.
PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "http_proxy",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
    "npm_config_proxy",
    "npm_config_https_proxy",
    "YARN_HTTP_PROXY",
    "YARN_HTTPS_PROXY",
    "CARGO_HTTP_PROXY",
)
NO_PROXY = "localhost,127.0.0.1,::1"
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def _pump(src, dst):
    try:
        while True:
            data = src.recv(262144)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def _serve(conn, path):
    try:
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(path)
    except OSError:
        conn.close()
        return
    back = threading.Thread(target=_pump, args=(upstream, conn), daemon=True)
    back.start()
    _pump(conn, upstream)
    back.join()
    conn.close()
    upstream.close()


def _accept(listener, path):
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=_serve, args=(conn, path), daemon=True).start()


def main(argv):
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("cairn network bridge: usage: SOCKET -- COMMAND...\n")
        return 2
    path, command = argv[1], argv[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    env = dict(os.environ)
    for name in PROXY_VARIABLES:
        env[name] = url
    env["NO_PROXY"] = env["no_proxy"] = NO_PROXY
    for sig in _SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    pid = os.fork()
    if pid == 0:
        listener.close()
        for sig in (*_SIGNALS, signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_DFL)
        try:
            os.execvpe(command[0], command, env)
        except OSError as exc:
            sys.stderr.write(f"cairn network bridge: cannot run {command[0]}: {exc}\n")
            os._exit(127)
    threading.Thread(target=_accept, args=(listener, path), daemon=True).start()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL, SIGSTOP
            pass
        os.kill(os.getpid(), sig)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.stdout.flush()
    os._exit(main(sys.argv))
