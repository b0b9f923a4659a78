"""The server's error type: a machine-readable ``code`` and a clear message (see docs/protocol.md)."""

from __future__ import annotations

from typing import Any

from tablegames.engine import IllegalAction, WrongSeat


class ApiError(Exception):
    """A refused request; nothing was changed."""

    def __init__(
        self, code: str, message: str, status: int = 400, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.headers = headers  # sent with a REST answer (``Retry-After`` of a ``busy`` refusal)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}


def from_engine(exc: IllegalAction) -> ApiError:
    """The engine's typed error as an ApiError (its ``.code``; a wrong seat is ``not_your_turn``)."""
    code = "not_your_turn" if isinstance(exc, WrongSeat) else exc.code
    return ApiError(code, str(exc), 409 if code in {"wrong_phase", "not_your_turn"} else 400)


class FieldError(ApiError):
    """A refused rule value: the error body also names the ``field`` (the parameter) it is about, so a form can
    show the message next to it (``{"error": {"code": "bad_rules", "message": ..., "field": "NAME"}}``)."""

    def __init__(self, message: str, field: str | None, code: str = "bad_rules", status: int = 400) -> None:
        super().__init__(code, message, status)
        self.field = field

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "field": self.field}
