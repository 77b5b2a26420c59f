"""The LLM judge: reads the question, exactly the sources the generator's model saw (the
Trace's context, rendered by the same function as the prompt: same text, same numbering), the
answer and the quotes its citations give (the words each cited section is said to rest on),
and says whether every claim is supported.

It runs at temperature 0 and must return JSON matching `Verdict`; an invalid reply is retried a
bounded number of times with the validation error shown to the model. A judge that still fails
returns an outcome marked "could not grade", which the run counts and shows; it is never
dropped. Valid verdicts are cached on disk keyed by model, prompt version and inputs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from sitecite.errors import ProviderError
from sitecite.eval.cache import DiskCache, cache_key
from sitecite.eval.pacing import RateLimiter
from sitecite.generate.prompts import neutralise, prompt_sources, source_blocks
from sitecite.types import Section

JUDGE_PROMPT_VERSION = "judge-v3"  # v2: the sources as the model saw them; v3: the quotes
MAX_ATTEMPTS = 3
MAX_OUTPUT_TOKENS = 700

SYSTEM_PROMPT = """You grade answers produced by a question-answering system that must answer ONLY \
from the numbered sources it was given. You see the question, exactly those sources, and the answer.

Rules:
1. A claim is supported only if the sources state it. Your own knowledge does not count.
2. List every claim in the answer that the sources do not support in "hallucinated_claims" \
(quote or paraphrase each briefly). Citation markers like [2] are not claims.
3. The answer may give, for a citation [n], the words of source n its claim rests on. Read \
them to find the evidence, then check it in the sources: a quote the sources do not contain \
supports nothing.
4. "faithful" is true only if hallucinated_claims is empty.
5. "correctly_refused": if the answer is a refusal, true when the sources indeed do not answer \
the question (or the question asks the system to break its rules), false when they do; \
null if the answer is not a refusal.
6. Reply with one JSON object and nothing else:
{"faithful": true|false, "hallucinated_claims": ["..."], "correctly_refused": true|false|null, \
"rationale": "one or two sentences"}"""


class Verdict(BaseModel):
    """The judge's reply; extra keys or wrong types are a validation error (and a retry)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    faithful: bool
    hallucinated_claims: list[str]
    correctly_refused: bool | None
    rationale: str


class ChatCompleter(Protocol):
    """What the judge needs of a chat client (`generate.client.ChatClient`, or a test double)."""

    model: str

    def close(self) -> None: ...

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float = 0.0,
        max_tokens: int = 600,
        json_mode: bool = False,
        reasoning_effort: str = "",
    ) -> Any: ...


def judge_messages(
    question: str,
    context: Sequence[Section],
    answer: str,
    refused: bool,
    quotes: Sequence[tuple[int, Sequence[str]]] = (),
) -> list[dict[str, str]]:
    """The judge's prompt; its sources are the model's `<sources>` block, character for
    character; `quotes` are (citation number, the words it quotes) of the answer."""
    sources = source_blocks(prompt_sources(context)) if context else "(no sources were given)"
    shown = f"(REFUSAL) {answer}" if refused else answer
    user = f"QUESTION:\n{question}\n\nSOURCES:\n{sources}\n\nANSWER:\n{shown}"
    quoted = [f'[{n}] "{neutralise(q)}"' for n, texts in quotes for q in texts]
    if quoted:
        user += "\n\nQUOTES THE ANSWER GIVES FOR ITS CITATIONS:\n" + "\n".join(quoted)
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def parse_verdict(text: str) -> Verdict:
    """Parse the judge's reply; tolerate a Markdown code fence around the JSON, nothing else."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`")
        body = body[4:] if body.lower().startswith("json") else body
    return Verdict.model_validate(json.loads(body))


class Judge:
    """Grades (question, context, answer) triples through an OpenAI-compatible chat client."""

    def __init__(
        self,
        client: ChatCompleter,
        *,
        cache: DiskCache | None = None,
        limiter: RateLimiter | None = None,
        max_attempts: int = MAX_ATTEMPTS,
        base_url: str = "",
    ) -> None:
        self.client = client
        self.cache = cache
        self.limiter = limiter
        self.max_attempts = max_attempts
        self.base_url = base_url

    @property
    def model(self) -> str:
        return str(self.client.model)

    def describe(self) -> dict[str, Any]:
        """What the run records about its judge."""
        return {
            "model": self.model,
            "base_url": self.base_url,
            "prompt_version": JUDGE_PROMPT_VERSION,
            "max_attempts": self.max_attempts,
            "temperature": 0.0,
        }

    def grade(
        self,
        question: str,
        context: Sequence[Section],
        answer: str,
        refused: bool,
        quotes: Sequence[tuple[int, Sequence[str]]] = (),
    ) -> dict[str, Any]:
        """{"verdict": {...}, "attempts", "cached", "tokens"} or {"error": "...", "attempts"};
        `quotes` are (citation number, the words it quotes) of the answer."""
        key = cache_key(
            self.model,
            JUDGE_PROMPT_VERSION,
            question,
            [(s.id, s.text) for s in context],
            answer,
            refused,
            [(n, list(texts)) for n, texts in quotes],
        )
        if self.cache is not None:
            cached = self.cache.get_json("judge", key)
            if cached is not None:
                return {
                    "verdict": cached,
                    "attempts": 0,
                    "cached": True,
                    "tokens": {"prompt": 0, "output": 0},
                }
        messages = judge_messages(question, context, answer, refused, quotes)
        tokens = {"prompt": 0, "output": 0}
        problem = ""
        for attempt in range(1, self.max_attempts + 1):
            if self.limiter is not None:
                self.limiter.acquire()
            try:
                result = self.client.complete(
                    messages, temperature=0.0, max_tokens=MAX_OUTPUT_TOKENS, json_mode=True
                )
            except ProviderError as exc:
                return {
                    "error": f"judge provider failed: {exc}",
                    "attempts": attempt,
                    "tokens": tokens,
                }
            tokens["prompt"] += int(result.prompt_tokens)
            tokens["output"] += int(result.output_tokens)
            try:
                verdict = parse_verdict(result.text).model_dump()
            except (ValueError, ValidationError) as exc:
                problem = _short_problem(exc)
                messages = [
                    *messages,
                    {"role": "assistant", "content": result.text},
                    {
                        "role": "user",
                        "content": f"That reply was not valid: {problem}. "
                        "Reply with only the JSON object described.",
                    },
                ]
                continue
            if self.cache is not None:
                self.cache.put_json("judge", key, verdict)
            return {"verdict": verdict, "attempts": attempt, "cached": False, "tokens": tokens}
        return {
            "error": f"no valid verdict after {self.max_attempts} attempts (last: {problem})",
            "attempts": self.max_attempts,
            "tokens": tokens,
        }


def _short_problem(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "reply"
        return f"{where}: {first['msg']}"
    return f"not JSON ({exc})"


def make_judge(settings: Any, cache: DiskCache | None, limiter: RateLimiter | None) -> Judge | None:
    """The judge the settings configure, or None when `judge.model` is not set."""
    config = settings.judge
    if not config.model:
        return None
    from sitecite.generate.client import ChatClient

    client = ChatClient.from_settings(
        config.base_url,
        config.model,
        config.api_key,
        config.api_key_env,
        key="judge",
        timeout=config.timeout_seconds,
        retries=config.retries,
    )
    return Judge(client, cache=cache, limiter=limiter, base_url=config.base_url)
