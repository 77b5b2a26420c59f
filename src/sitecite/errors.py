"""One exception tree for the whole library; the CLI and the server translate it at the edges.

SiteciteError                 anything sitecite raises on purpose
├── ConfigError               a bad setting, flag or sitecite.toml entry (names the key)
├── IngestError               a content file that cannot be read (names the file and line)
├── IndexDirError             a missing, corrupt or incompatible index directory
│   └── EmbedderMismatchError the index was built with another embedder
├── EmbedError                an embedder that cannot load or answer
├── ProviderError             an LLM provider that failed (after retries)
├── QuestionSetError          a bad question set (names the question)
└── InputError                a bad question from a user (empty, too long, wrong type)
    └── FeedbackError         a visitor's feedback that cannot be recorded (a stable code)
"""

from __future__ import annotations


class SiteciteError(Exception):
    """Base class: the message is meant for the person running sitecite."""

    exit_code = 1


class ConfigError(SiteciteError):
    """A setting is unknown or has a bad value; the message names the setting."""

    exit_code = 2


class IngestError(SiteciteError):
    """A content file cannot be ingested; carries the file and, where known, the line."""

    def __init__(self, message: str, path: str = "", line: int | None = None) -> None:
        self.path = path
        self.line = line
        where = path if line is None else f"{path}:{line}"
        super().__init__(f"{where}: {message}" if where else message)
        self.reason = message


class IndexDirError(SiteciteError):
    """The index directory is missing, corrupt or incompatible."""


class EmbedderMismatchError(IndexDirError):
    """The index was built with a different embedder than the one configured."""


class EmbedError(SiteciteError):
    """An embedder cannot be loaded or failed to embed."""


class ProviderError(SiteciteError):
    """An LLM provider failed after its retries; the message says how."""


class QuestionSetError(SiteciteError):
    """A question set file is malformed; the message names the question and field."""

    exit_code = 2


class InputError(SiteciteError):
    """A user's question is unusable (empty, too long, not text)."""

    exit_code = 2


class FeedbackError(InputError):
    """A visitor's feedback is malformed; `code` names what is wrong in a stable word."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
