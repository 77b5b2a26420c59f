"""The LLM generator: a chain of chat-completions providers whose every draft is verified.

    context -> quarantine instruction-like source sentences -> prompt
            -> provider 1, 2, ... (retries, JSON repair or one retry, circuit breaker each)
            -> verify the draft (sitecite.verify) -> policy: drop / fallback / refuse
            -> else the extractive answer (verified the same way), else a refusal

It never raises for a provider's sake and never returns a sentence verification rejected.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sitecite.config import LLMSettings, Settings
from sitecite.embed import Embedder
from sitecite.errors import ConfigError, ProviderError
from sitecite.generate.base import Context, Generator
from sitecite.generate.client import ChatClient, ChatError, ChatResult
from sitecite.generate.prompts import (
    REPAIR_MESSAGE,
    ModelReply,
    PromptSource,
    build_messages,
    parse_reply,
    render,
)
from sitecite.generate.providers import PROVIDERS, parse_fallback, resolve_endpoint
from sitecite.screen import has_answer_kind
from sitecite.types import Check, Draft
from sitecite.verify import (
    DEFAULT_SUPPORT_THRESHOLD,
    SourceEvidence,
    Verification,
    Verifier,
    build_evidence,
)

RAW_OUTPUT_LIMIT = 4000


class CircuitBreaker:
    """Skips a provider after `failures` failures in a row, for `cooldown` s (or its Retry-After).

    After the pause one trial call is let through (half-open): success closes the breaker,
    failure opens it again.
    """

    def __init__(
        self, failures: int, cooldown: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.failures = failures
        self.cooldown = cooldown
        self.clock = clock
        self.consecutive = 0
        self.open_until = 0.0
        self._lock = threading.Lock()

    def allow(self) -> bool:
        with self._lock:
            return self.consecutive < self.failures or self.clock() >= self.open_until

    def remaining(self) -> float:
        return max(0.0, self.open_until - self.clock())

    def record(self, ok: bool, retry_after: float | None = None) -> None:
        with self._lock:
            if ok:
                self.consecutive, self.open_until = 0, 0.0
                return
            self.consecutive += 1
            if self.consecutive >= self.failures:
                self.open_until = self.clock() + max(self.cooldown, retry_after or 0.0)


@dataclass
class Link:
    """One provider of the chain with its own options and breaker."""

    client: ChatClient
    breaker: CircuitBreaker
    temperature: float
    max_tokens: int
    json_mode: bool
    reasoning_effort: str

    @property
    def name(self) -> str:
        return self.client.name


@dataclass
class Run:
    """What one answer accumulates across the chain: attempts, checks, tokens, raw outputs."""

    attempts: list[dict[str, Any]] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    prompt_tokens: int = 0
    output_tokens: int = 0
    estimated: bool = False
    raw_output: str = ""
    timings: dict[str, float] = field(default_factory=dict)

    def time(self, step: str, ms: float) -> None:
        self.timings[step] = self.timings.get(step, 0.0) + ms

    def add(self, result: ChatResult) -> None:
        self.time("llm", result.latency_ms)
        self.attempts.extend(result.attempts)
        self.prompt_tokens += result.prompt_tokens
        self.output_tokens += result.output_tokens
        self.estimated = self.estimated or result.tokens_estimated
        self.raw_output = result.text[:RAW_OUTPUT_LIMIT]

    @property
    def tokens(self) -> dict[str, int]:
        tokens = {"prompt": self.prompt_tokens, "output": self.output_tokens}
        if self.estimated:
            tokens["estimated"] = 1
        return tokens


@dataclass
class Prepared:
    """The context made ready for a model: prompt sources, evidence and the quarantine check."""

    messages: list[dict[str, str]]
    evidence: list[SourceEvidence]
    quarantine: Check


class LLMGenerator(Generator):
    """Asks each provider in turn; only verified sentences ever leave this class."""

    name = "llm"

    def __init__(
        self, links: list[Link], fallback: Generator, verifier: Verifier, policy: str = "drop"
    ) -> None:
        if policy not in ("drop", "fallback", "refuse"):
            raise ConfigError(
                f"bad setting 'llm.verify_policy': '{policy}' is not drop, fallback or refuse"
            )
        self.links = links
        self.fallback = fallback
        self.verifier = verifier
        self.policy = policy

    def generate(self, context: Context) -> Draft:
        prepared = self.prepare(context)
        run = Run(checks=[prepared.quarantine])
        prompt = render(prepared.messages)
        for link in self.links:
            if not link.breaker.allow():
                run.attempts.append(
                    {
                        "provider": link.name,
                        "status": None,
                        "ms": 0.0,
                        "error": f"skipped: circuit open for {link.breaker.remaining():.0f}s more",
                    }
                )
                continue
            reply = self._ask(link, prepared.messages, run)
            if reply is None:
                continue
            if reply.not_on_site:
                run.checks.append(Check("llm", True, f"{link.name} replied {reply.answer}"))
                return self._draft(run, prompt, "", (), True, f"llm:{link.name}", "not_on_site")
            verification = self.verify(
                reply.answer, reply.citations, prepared.evidence, context, run
            )
            run.checks.extend(verification.checks)
            draft = self._decide(verification, context, link, run, prompt)
            if draft is not None:
                return draft
            break  # answered, but verification rejected it: the extractive answer follows
        else:
            run.checks.append(Check("llm", False, "no provider produced a usable reply"))
        return self._fall_back(context, prepared, run, prompt)

    def prepare(self, context: Context) -> Prepared:
        index = context.index
        vectors = [index.sentence_vectors[_slice(index.sentence_rows(row))] for row in context.rows]
        evidence = build_evidence(context.sections, vectors)
        sources = [
            PromptSource(n, s.title, s.heading, tuple(e.sentences))
            for n, (s, e) in enumerate(zip(context.sections, evidence, strict=True), start=1)
        ]
        removed = [(e.position + 1, q) for e in evidence for q in e.quarantined]
        check = Check(
            "source_instructions",
            not removed,
            "; ".join(f"[{n}] kept out of the prompt: '{q[:80]}'" for n, q in removed)
            if removed
            else "no source sentence reads as an instruction",
        )
        history = [(turn.question, turn.answer) for turn in context.history]
        messages = build_messages(
            context.asked or context.question, sources, _subject(context), history
        )
        return Prepared(messages, evidence, check)

    def verify(
        self,
        answer: str,
        citations: tuple[int, ...],
        evidence: list[SourceEvidence],
        context: Context,
        run: Run | None = None,
    ) -> Verification:
        verification = self.verifier.verify(
            answer,
            evidence,
            context.query_vector,
            citations,
            context.index.subject_words,
            context.index.vocabulary,
        )
        if run is not None:
            run.time("verify", verification.ms)
        return verification

    def _ask(self, link: Link, messages: list[dict[str, str]], run: Run) -> ModelReply | None:
        """One provider's reply, parsed; a malformed reply is repaired or asked for once more."""
        conversation = list(messages)
        for turn in (1, 2):
            try:
                result = link.client.complete(
                    conversation,
                    temperature=link.temperature,
                    max_tokens=link.max_tokens,
                    json_mode=link.json_mode,
                    reasoning_effort=link.reasoning_effort,
                )
            except ProviderError as exc:
                attempts = exc.attempts if isinstance(exc, ChatError) else ()
                run.attempts.extend(
                    attempts or ({"provider": link.name, "status": None, "error": str(exc)},)
                )
                link.breaker.record(False, exc.retry_after if isinstance(exc, ChatError) else None)
                run.checks.append(Check(f"llm_{link.name}", False, str(exc)))
                return None
            run.add(result)
            reply = parse_reply(result.text)
            if reply is not None:
                link.breaker.record(True)
                if reply.repaired:
                    run.attempts[-1]["repaired_json"] = True
                return reply
            run.attempts[-1]["error"] = "reply is not the JSON asked for"
            if turn == 1:
                conversation = [
                    *messages,
                    {"role": "assistant", "content": result.text},
                    {"role": "user", "content": REPAIR_MESSAGE},
                ]
        link.breaker.record(False)
        run.checks.append(Check(f"llm_{link.name}", False, "malformed JSON twice"))
        return None

    def _decide(
        self, verification: Verification, context: Context, link: Link, run: Run, prompt: str
    ) -> Draft | None:
        """The policy: a clean draft passes; otherwise drop, fall back or refuse."""
        generator = f"llm:{link.name}"
        if verification.clean:
            run.checks.append(Check("verify_policy", True, "every sentence verified"))
            return self._draft(run, prompt, verification.text, verification.cited, False, generator)
        failed = sum(not s.ok for s in verification.sentences)
        total = len(verification.sentences)
        if (
            self.policy == "drop"
            and verification.answers
            and has_answer_kind(context.answer_kind, verification.text, context.question)
        ):
            run.checks.append(
                Check(
                    "verify_policy",
                    False,
                    f"drop: removed {failed} of {total} sentence(s); the rest still answers",
                )
            )
            return self._draft(run, prompt, verification.text, verification.cited, False, generator)
        if self.policy == "refuse":
            run.checks.append(
                Check("verify_policy", False, f"refuse: {failed} of {total} sentence(s) failed")
            )
            return self._draft(run, prompt, "", (), True, generator, "unverified")
        reason = (
            "nothing verified still answers"
            if self.policy == "drop"
            else f"{failed} sentence(s) failed"
        )
        run.checks.append(
            Check("verify_policy", False, f"{self.policy}: {reason}; extractive answer instead")
        )
        return None

    def _fall_back(self, context: Context, prepared: Prepared, run: Run, prompt: str) -> Draft:
        """The extractive answer, verified like any other; a refusal if nothing survives."""
        draft = self.fallback.generate(context)
        run.checks.extend(draft.checks)
        name = draft.generator or "extractive"
        if draft.refused:
            return self._draft(
                run, prompt, "", (), True, name, draft.refusal_reason or "fallback_refused"
            )
        numbered = _renumber_to_context(draft.text, draft.cited)
        verification = self.verify(numbered, (), prepared.evidence, context, run)
        if not verification.text:
            run.checks.append(
                Check("fallback", False, "the extractive answer did not verify either")
            )
            return self._draft(run, prompt, "", (), True, name, "unverified")
        run.checks.append(
            Check(
                "fallback",
                True,
                f"extractive answer, {len(verification.sentences)} sentence(s) "
                f"checked, {sum(s.ok for s in verification.sentences)} kept",
            )
        )
        return self._draft(run, prompt, verification.text, verification.cited, False, name)

    def _draft(
        self,
        run: Run,
        prompt: str,
        text: str,
        cited: tuple[int, ...],
        refused: bool,
        generator: str,
        reason: str = "",
    ) -> Draft:
        return Draft(
            text,
            cited,
            refused,
            generator,
            refusal_reason=reason,
            prompt=prompt,
            raw_output=run.raw_output,
            checks=tuple(run.checks),
            attempts=tuple(run.attempts),
            tokens=run.tokens,
            timings=dict(run.timings),
        )


def _slice(rows: range) -> slice:
    return slice(rows.start, rows.stop)


def _subject(context: Context) -> str:
    facts = next((s for s in context.index.sections if s.page_id == "_facts"), None)
    if facts is not None and facts.title:
        return facts.title.removesuffix(" (profile)").strip()
    return "the person or organisation this website is about"


def _renumber_to_context(text: str, cited: tuple[int, ...]) -> str:
    """A draft's `[n]` (numbered in `cited` order) as 1-based context positions, for verify."""
    return re.sub(
        r"\[(\d+)\]",
        lambda m: (
            f"[{cited[int(m.group(1)) - 1] + 1}]"
            if 0 < int(m.group(1)) <= len(cited)
            else m.group(0)
        ),
        text,
    )


def make_llm_generator(
    settings: Settings,
    extractive: Generator,
    embedder: Embedder,
    environ: Mapping[str, str] | None = None,
) -> LLMGenerator:
    """The chain from `llm` and `llm.fallbacks`, checked now: bad settings fail before questions."""
    llm = settings.llm
    count_tokens = getattr(embedder, "count_tokens", None)
    links = [_link(llm, _primary(llm), "llm", count_tokens, environ)]
    for position, entry in enumerate(llm.fallbacks):
        links.append(
            _link(
                llm,
                parse_fallback(entry, position),
                f"llm.fallbacks[{position}]",
                count_tokens,
                environ,
            )
        )
    threshold = (
        DEFAULT_SUPPORT_THRESHOLD if llm.support_threshold is None else llm.support_threshold
    )
    return LLMGenerator(links, extractive, Verifier(embedder, threshold), llm.verify_policy)


def _primary(llm: LLMSettings) -> dict[str, Any]:
    base_url = llm.base_url
    if llm.provider:
        known = PROVIDERS.get(llm.provider.lower())
        if known is None:
            raise ConfigError(
                f"bad setting 'llm.provider': unknown provider '{llm.provider}'; "
                "known: "
                f"{', '.join(sorted(PROVIDERS))} (or set llm.base_url)"
            )
        base_url = base_url or known.base_url
    if not base_url:
        raise ConfigError('generator = "llm" needs llm.base_url (or llm.provider) and llm.model')
    return {
        "base_url": base_url,
        "model": llm.model,
        "api_key": llm.api_key,
        "api_key_env": llm.api_key_env,
    }


def _link(
    llm: LLMSettings,
    data: Mapping[str, Any],
    key: str,
    count_tokens: Callable[[str], int] | None,
    environ: Mapping[str, str] | None,
) -> Link:
    endpoint = resolve_endpoint(data, key, environ)
    client = ChatClient(
        endpoint.base_url,
        endpoint.model,
        endpoint.api_key,
        name=endpoint.name,
        timeout=float(endpoint.setting("timeout_seconds", llm.timeout_seconds)),
        retries=int(endpoint.setting("retries", llm.retries)),
        count_tokens=count_tokens,
    )
    return Link(
        client,
        CircuitBreaker(llm.breaker_failures, llm.breaker_cooldown_seconds),
        float(endpoint.setting("temperature", llm.temperature)),
        int(endpoint.setting("max_tokens", llm.max_tokens)),
        bool(endpoint.setting("json_mode", llm.json_mode)),
        str(endpoint.setting("reasoning_effort", llm.reasoning_effort)),
    )
