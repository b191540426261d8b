"""Chat models: the factory (spec string → model), the scripted model, text tool-call
recovery and the mapping of model errors to resumable pauses."""

from cairn.graph.models.errors import (
    ModelConfigError,
    describe_model_error,
    is_context_overflow,
    is_transient_model_error,
)
from cairn.graph.models.factory import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_MODEL,
    DEFAULT_TIMEOUT,
    create_model,
    default_model_spec,
)
from cairn.graph.models.text_tool_calls import recover_text_tool_calls

__all__ = [
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_MODEL",
    "DEFAULT_TIMEOUT",
    "ModelConfigError",
    "create_model",
    "default_model_spec",
    "describe_model_error",
    "is_context_overflow",
    "is_transient_model_error",
    "recover_text_tool_calls",
]
