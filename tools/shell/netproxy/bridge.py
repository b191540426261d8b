"""Runs inside the sandbox: a TCP proxy address on the sandbox's own loopback, relayed to cairn.

``python -I -S -c SOURCE SOCKET -- COMMAND...``: listen on ``127.0.0.1`` (an ephemeral port
of the sandbox's private network namespace), point the usual proxy variables at it, run
COMMAND as a child and relay each accepted connection to the Unix socket ``SOCKET`` (the
egress proxy's lane, bound into the sandbox).  Exits as COMMAND exits.

Standard library only, and no cairn import: the source is handed to the sandbox's Python with
``-c``, so cairn's install location need not be visible inside the sandbox.  The proxy imports
:func:`relay` from here (one copy of the byte pump).  Signals to the
process group reach COMMAND directly; the bridge ignores them and follows COMMAND's exit.
"""

# Low-level modules only: ``socket``, ``signal`` and ``threading`` import ``enum`` and friends,
# which would double the start-up time every granted command pays.
import _signal as signal
import _socket as socket
import _thread
import errno
import os
import sys

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
_CHUNK = 1 << 20
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def pump(src, dst, count=None):
    """Copy ``src`` to ``dst`` until EOF (zero-copy ``splice`` through a pipe where the kernel
    allows it), then half-close ``dst``; ``count(n)`` sees each chunk's size."""
    try:
        try:
            _splice(src, dst, count)
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                raise
            _copy(src, dst, count)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def _splice(src, dst, count):
    read_end, write_end = os.pipe()
    try:
        while True:
            n = os.splice(src.fileno(), write_end, _CHUNK)
            if not n:
                return
            if count is not None:
                count(n)
            while n:
                n -= os.splice(read_end, dst.fileno(), n)
    finally:
        os.close(read_end)
        os.close(write_end)


def _copy(src, dst, count):
    buffer = bytearray(_CHUNK)
    view = memoryview(buffer)
    while True:
        n = src.recv_into(buffer)
        if not n:
            return
        if count is not None:
            count(n)
        dst.sendall(view[:n])


def relay(one, other, sent=None, received=None):
    """Both directions between two connected sockets until both ends are done."""
    done = _thread.allocate_lock()
    done.acquire()

    def back():
        try:
            pump(other, one, received)
        finally:
            done.release()

    _thread.start_new_thread(back, ())
    pump(one, other, sent)
    done.acquire()


def _serve(conn, path):
    try:
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(path)
    except OSError:
        conn.close()
        return
    relay(conn, upstream)
    conn.close()
    upstream.close()


def _accept(listener, path):
    while True:
        try:
            fd, _ = listener._accept()
        except OSError:
            return
        conn = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 0, fd)
        _thread.start_new_thread(_serve, (conn, path))


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
    _thread.start_new_thread(_accept, (listener, path))
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
