"""The question as every entry point takes it in (`sitecite ask`, `POST /api/ask`,
`sitecite eval`): one length limit, `serve.max_question_chars`, and one error for each way a
question is unusable, with the code the HTTP API returns (`question_too_long`, ...).
"""

from __future__ import annotations

from sitecite.errors import InputError
from sitecite.pipeline import validate_question
from sitecite.types import Answer, Check, RefusalReason, Trace

EMPTY, TOO_LONG, NOT_TEXT = "empty_question", "question_too_long", "question_not_string"


class QuestionError(InputError):
    """A question no entry point answers; `code` is the HTTP API's error code for it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def take_question(question: object, max_chars: int) -> str:
    """The question trimmed, its runs of whitespace collapsed, or a QuestionError: not a
    string, empty, or longer than `max_chars` characters once trimmed."""
    try:
        return validate_question(question, max_chars)
    except InputError as error:
        if not isinstance(question, str):
            code = NOT_TEXT
        else:
            code = EMPTY if not question.split() else TOO_LONG
        raise QuestionError(code, str(error)) from error


def error_json(error: QuestionError) -> dict[str, dict[str, str]]:
    """The error as the HTTP API shapes it: {"error": {"code", "message"}}."""
    return {"error": {"code": error.code, "message": str(error)}}


def refused_question(question: str, error: QuestionError, threshold: float) -> tuple[Answer, Trace]:
    """What `sitecite eval` records for a question no entry point would answer: a refusal
    with the error's code as its reason and its message as the text, nothing retrieved."""
    reason = RefusalReason.TOO_LONG if error.code == TOO_LONG else RefusalReason.NONE
    result = Answer(
        question=question,
        refused=True,
        answer=str(error),
        citations=(),
        score=0.0,
        generator="none",
        latency_ms=0.0,
        retrieved=(),
        refusal_reason=str(reason) or error.code,
    )
    check = Check("question", False, f"{error.code}: {error}")
    trace = Trace(question, (), threshold, (), "none", checks=(check,))
    return result, trace
