"""Classify and describe model-call failures without importing any provider SDK.

The openai client already retries transient failures with backoff (``max_retries``); whatever
reaches cairn has exhausted those retries.  The graph uses ``is_transient_model_error`` to decide
whether pausing and retrying later makes sense, and ``describe_model_error`` for the one line a
person sees.  Exceptions are recognised by attributes and class names (``status_code``,
``APITimeoutError``...) so this module works for openai, httpx and scripted errors alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cairn.errors import CairnError, ConfigError


class ModelConfigError(ConfigError):
    """The model cannot be created as configured (no key or endpoint, bad script file...)."""


class EmptyReplyError(CairnError, RuntimeError):
    """The server answered without any choice (``choices: []``), again after one retry."""

    def __init__(self) -> None:
        super().__init__(
            "the model server returned an empty reply (no choices) twice; "
            "check the server's logs, then /continue to try again"
        )


_TRANSIENT_STATUS = {408, 409, 425, 429}
_TIMEOUT_CLASSES = {"APITimeoutError", "ModelTimeoutError", "TimeoutException"}
_CONNECTION_CLASSES = {"APIConnectionError", "ModelConnectionError", "NetworkError", "RemoteProtocolError"}
_STATUS_TEXT = {
    400: "the model server rejected the request",
    401: "authentication failed (check OPENAI_API_KEY)",
    403: "the model server refused access",
    404: "model or endpoint not found (check --model and OPENAI_BASE_URL)",
    408: "the model server timed out",
    413: "the request is too large for the model server",
    422: "the model server could not process the request",
    429: "rate limited by the model server",
}


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception and its causes/contexts (wrappers often hide the provider error)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 8:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _status_of(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int):
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) and status >= 400 else None


def _error_body(exc: BaseException) -> dict[str, Any]:
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    return body if isinstance(body, dict) else {}


def _detail(exc: BaseException) -> str:
    body = _error_body(exc)
    text = body.get("message") if isinstance(body.get("message"), str) else None
    text = text or getattr(exc, "message", None) or str(exc) or type(exc).__name__
    line = str(text).strip().splitlines()[0] if str(text).strip() else type(exc).__name__
    return line if len(line) <= 200 else line[:197] + "..."


def is_transient_model_error(exc: BaseException) -> bool:
    """True for failures worth retrying later: 408/409/425/429, 5xx, timeouts, dropped connections.

    A 429 whose code is ``insufficient_quota`` is not transient (the account is out of credit).
    """
    for err in _chain(exc):
        if _is_quota_error(err):
            return False
        retryable = getattr(err, "is_retryable", None)  # langchain_core.exceptions.ModelError
        if isinstance(retryable, bool):
            return retryable
        if _class_names(err) & (_TIMEOUT_CLASSES | _CONNECTION_CLASSES):
            return True
        if isinstance(err, TimeoutError | ConnectionError):
            return True
        status = _status_of(err)
        if status is not None:
            return status in _TRANSIENT_STATUS or status >= 500
    return False


def _is_quota_error(err: BaseException) -> bool:
    return _status_of(err) == 429 and _error_body(err).get("code") == "insufficient_quota"


def _is_overflow(err: BaseException) -> bool:
    if "ContextOverflowError" in _class_names(err):
        return True
    body = _error_body(err)
    return body.get("code") == "context_length_exceeded" or "maximum context length" in str(
        body.get("message") or ""
    )


def is_context_overflow(exc: BaseException) -> bool:
    """True when the provider refused the request because the prompt is too long."""
    return any(_is_overflow(err) for err in _chain(exc))


def _url_of(exc: BaseException) -> str:
    request = getattr(exc, "request", None)
    url = getattr(request, "url", None)
    return f" at {url}" if url is not None else ""


def describe_model_error(exc: BaseException) -> str:
    """One short line for a person: what failed and what to check."""
    for err in _chain(exc):
        names = _class_names(err)
        status = _status_of(err)
        if status is not None:
            if _is_quota_error(err):
                label = "the account has no quota left"
            elif _is_overflow(err):
                label = "the conversation is too long for the model's context window"
            else:
                label = _STATUS_TEXT.get(status, "the model server failed" if status >= 500 else "error")
            return f"{label} (HTTP {status}): {_detail(err)}"
        if names & _TIMEOUT_CLASSES or isinstance(err, TimeoutError):
            return f"the model server did not answer in time{_url_of(err)}"
        if names & _CONNECTION_CLASSES or isinstance(err, ConnectionError):
            return f"could not reach the model server{_url_of(err)}: {_detail(err)}"
    if isinstance(exc, ModelConfigError | EmptyReplyError):
        return str(exc)
    return f"{type(exc).__name__}: {_detail(exc)}"
