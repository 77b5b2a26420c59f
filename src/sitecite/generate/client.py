"""An OpenAI-compatible chat-completions client on httpx, shared by the LLM generator and the judge.

Retries with exponential backoff and full jitter on 429, 5xx, timeouts and dropped
connections, honouring `Retry-After`; every attempt (status, error, milliseconds) is kept so
the Trace can show what happened. Usage tokens come from the response's `usage`; when a
provider omits them they are estimated and flagged as such.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from sitecite.config import check_base_url
from sitecite.errors import ConfigError, ProviderError
from sitecite.generate.providers import resolve_api_key

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
BACKOFF_BASE_SECONDS = 0.5
BACKOFF_CAP_SECONDS = 8.0
MAX_RETRY_AFTER_SECONDS = 10.0  # longer than this, a visitor is better served by the next provider


@dataclass(frozen=True)
class ChatResult:
    """One successful completion with its cost: tokens, time and every attempt it took."""

    text: str
    prompt_tokens: int
    output_tokens: int
    model: str
    latency_ms: float
    attempts: tuple[dict[str, Any], ...]
    tokens_estimated: bool = False
    finish_reason: str = ""


class ChatError(ProviderError):
    """A provider failed after its retries; carries the attempts and any Retry-After asked for."""

    def __init__(
        self,
        message: str,
        attempts: tuple[dict[str, Any], ...] = (),
        retry_after: float | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.retry_after = retry_after
        self.status = status


@dataclass
class _Failure:
    message: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def estimate_tokens(text: str) -> int:
    """A provider-independent estimate (~4 characters a token) for when `usage` is missing."""
    return max(1, (len(text) + 3) // 4) if text else 0


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class ChatClient:
    """Calls `POST {base_url}/chat/completions`; raises ChatError (a ProviderError) at the end."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "",
        *,
        timeout: float = 20.0,
        retries: int = 2,
        name: str = "",
        count_tokens: Callable[[str], int] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        max_retry_after: float = MAX_RETRY_AFTER_SECONDS,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not model.strip():
            raise ConfigError(
                f"bad setting 'model': a model name is required for {base_url or 'the provider'}"
            )
        if timeout <= 0:
            raise ConfigError(f"bad setting 'timeout_seconds': must be positive, got {timeout}")
        if retries < 0:
            raise ConfigError(f"bad setting 'retries': must be 0 or more, got {retries}")
        self.base_url = check_base_url(base_url, "base_url")
        self.url = (
            self.base_url
            if self.base_url.endswith("/chat/completions")
            else f"{self.base_url}/chat/completions"
        )
        self.model = model.strip()
        self.name = name or f"{httpx.URL(self.base_url).host}:{self.model}"
        self.timeout = timeout
        self.retries = retries
        self.count_tokens = count_tokens
        self.max_retry_after = max_retry_after
        self._sleep = sleep
        self._random = random.Random()
        headers = {"Content-Type": "application/json", "User-Agent": "sitecite"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._http = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout),
            transport=transport,
            follow_redirects=False,
        )
        self._json_mode_supported = True

    @classmethod
    def from_settings(
        cls,
        base_url: str,
        model: str,
        api_key: str = "",
        api_key_env: str = "",
        *,
        key: str = "llm",
        environ: Mapping[str, str] | None = None,
        **options: Any,
    ) -> ChatClient:
        """Build from settings values; the key is given, read from a named variable or inferred."""
        url = check_base_url(base_url, f"{key}.base_url")
        if not model.strip():
            raise ConfigError(f"bad setting '{key}.model': a model name is required for {url}")
        resolved = resolve_api_key(url, api_key, api_key_env, key=key, environ=environ)
        return cls(url, model, resolved, **options)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float = 0.0,
        max_tokens: int = 600,
        json_mode: bool = False,
        reasoning_effort: str = "",
    ) -> ChatResult:
        """One completion; retries transient failures, then raises ChatError with every attempt."""
        attempts: list[dict[str, Any]] = []
        started = time.perf_counter()
        attempt = 0
        while True:
            attempt += 1
            body = self._body(
                messages,
                temperature,
                max_tokens,
                json_mode and self._json_mode_supported,
                reasoning_effort,
            )
            mark = time.perf_counter()
            outcome = self._attempt(body)
            record: dict[str, Any] = {
                "provider": self.name,
                "model": self.model,
                "attempt": attempt,
                "ms": round((time.perf_counter() - mark) * 1000.0, 2),
            }
            if isinstance(outcome, ChatResult):
                record.update(status=200, error="")
                attempts.append(record)
                return ChatResult(
                    outcome.text,
                    outcome.prompt_tokens,
                    outcome.output_tokens,
                    outcome.model,
                    (time.perf_counter() - started) * 1000.0,
                    tuple(attempts),
                    outcome.tokens_estimated,
                    outcome.finish_reason,
                )
            record.update(status=outcome.status, error=outcome.message, **outcome.extra)
            attempts.append(record)
            if outcome.extra.get("json_mode_rejected") and self._json_mode_supported:
                self._json_mode_supported = (
                    False  # this provider rejects response_format: ask in the prompt only
                )
                continue
            wait = self._wait(outcome, attempt)
            if wait is None:
                raise ChatError(
                    f"{self.name}: {outcome.message} (after {attempt} attempt"
                    f"{'s' if attempt > 1 else ''})",
                    tuple(attempts),
                    outcome.retry_after,
                    outcome.status,
                )
            record["waited_ms"] = round(wait * 1000.0, 1)
            self._sleep(wait)

    def _wait(self, failure: _Failure, attempt: int) -> float | None:
        """Seconds to sleep before the next attempt, or None to give up now."""
        if not failure.retryable or attempt > self.retries:
            return None
        if failure.retry_after is not None:
            if failure.retry_after > self.max_retry_after:
                return None  # a long pause asked for: the next link of the chain answers sooner
            return failure.retry_after
        ceiling = min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** (attempt - 1))
        return self._random.uniform(0.0, ceiling)

    def _body(
        self,
        messages: list[dict[str, Any]],
        temperature: float,
        max_tokens: int,
        json_mode: bool,
        reasoning_effort: str,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "stream": False,
        }
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        if reasoning_effort:
            body["reasoning_effort"] = reasoning_effort
        return body

    def _attempt(self, body: dict[str, Any]) -> ChatResult | _Failure:
        try:
            response = self._http.post(self.url, json=body)
        except httpx.TimeoutException as exc:
            return _Failure(f"timed out after {self.timeout:g}s ({type(exc).__name__})", True)
        except httpx.TransportError as exc:
            return _Failure(f"connection failed ({type(exc).__name__}: {exc or 'no detail'})", True)
        if response.status_code != 200:
            return self._http_failure(response, "response_format" in body)
        try:
            payload = response.json()
            choice = payload["choices"][0]
            text = choice["message"].get("content") or ""
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            return _Failure(f"not a chat-completions response: {response.text[:200]!r}", True, 200)
        if not text.strip():
            return _Failure(
                f"empty completion (finish_reason={choice.get('finish_reason')})", True, 200
            )
        return self._result(payload, choice, text, body)

    def _http_failure(self, response: httpx.Response, sent_json_mode: bool) -> _Failure:
        status = response.status_code
        detail = _error_detail(response)
        extra: dict[str, Any] = {}
        if status == 400 and sent_json_mode and "response_format" in detail.lower():
            extra["json_mode_rejected"] = True
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        if retry_after is not None:
            extra["retry_after_s"] = round(retry_after, 3)
        return _Failure(
            f"HTTP {status}: {detail}",
            status in RETRYABLE_STATUS or status >= 500,
            status,
            retry_after,
            extra,
        )

    def _result(
        self, payload: dict[str, Any], choice: dict[str, Any], text: str, body: dict[str, Any]
    ) -> ChatResult:
        usage = payload.get("usage") or {}
        prompt_tokens, output_tokens = usage.get("prompt_tokens"), usage.get("completion_tokens")
        estimated = not isinstance(prompt_tokens, int) or not isinstance(output_tokens, int)
        count = self.count_tokens or estimate_tokens
        if not isinstance(prompt_tokens, int):
            prompt_tokens = count("\n".join(str(m.get("content", "")) for m in body["messages"]))
        if not isinstance(output_tokens, int):
            output_tokens = count(text)
        return ChatResult(
            text,
            int(prompt_tokens),
            int(output_tokens),
            str(payload.get("model") or self.model),
            0.0,
            (),
            estimated,
            str(choice.get("finish_reason") or ""),
        )


def _error_detail(response: httpx.Response) -> str:
    """The provider's own error message when it sends one, else the start of the body."""
    try:
        error = response.json().get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])[:300]
        if isinstance(error, str):
            return error[:300]
    except (ValueError, AttributeError):
        pass
    return response.reason_phrase or response.text[:200]
