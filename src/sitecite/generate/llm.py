"""The LLM generator: a chain of chat-completions providers whose every draft is verified.

    context (quarantined by the pipeline) -> prompt
            -> provider 1, 2, ... (retries, JSON repair or one retry, circuit breaker each)
            -> the reply as a visitor will see it (sitecite.generate.reply.present: verify,
               then the policy: drop / fallback / refuse)
            -> when no provider answers: the extractive answer (verified the same way)

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
from sitecite.generate.parse import parse_reply
from sitecite.generate.pointer import closest_line
from sitecite.generate.prompts import REPAIR_MESSAGE, build_messages, prompt_sources, render
from sitecite.generate.providers import PROVIDERS, parse_fallback, resolve_endpoint
from sitecite.generate.reply import POLICIES, ReplyContext, Shown, pointing, present
from sitecite.index.store import Index
from sitecite.types import Check, Draft
from sitecite.verify import Lexicon, Verifier, build_evidence

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
    """The context made ready for a model: the prompt, and what its sources vouch for."""

    messages: list[dict[str, str]]
    reply_context: ReplyContext


class LLMGenerator(Generator):
    """Asks each provider in turn; only verified sentences ever leave this class."""

    name = "llm"

    def __init__(
        self, links: list[Link], fallback: Generator, verifier: Verifier, policy: str = "drop"
    ) -> None:
        if policy not in POLICIES:
            raise ConfigError(
                f"bad setting 'llm.verify_policy': '{policy}' is not drop, fallback or refuse"
            )
        self.links = links
        self.fallback = fallback
        self.verifier = verifier
        self.policy = policy
        self._lexicons: dict[int, tuple[Index, Lexicon]] = {}

    def close(self) -> None:
        for link in self.links:
            link.client.close()

    def generate(self, context: Context) -> Draft:
        prepared = self.prepare(context)
        run = Run()
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
            raw = self._ask(link, prepared.messages, run)
            if raw is None:
                continue
            shown = self.present(raw, prepared, run)
            if shown.fallback:
                return self._fall_back(context, prepared, run, prompt)
            return self._draft(run, prompt, shown, f"llm:{link.name}")
        run.checks.append(Check("llm", False, "no provider produced a usable reply"))
        return self._fall_back(context, prepared, run, prompt)

    def prepare(self, context: Context) -> Prepared:
        """The prompt and the evidence, from the context exactly as the pipeline admitted it."""
        index = context.index
        lexicon = self.lexicon(index)
        evidence = build_evidence(context.sections, lexicon, index.subject_words, context.question)
        history = [(turn.question, turn.answer) for turn in context.history]
        messages = build_messages(
            context.asked or context.question,
            prompt_sources(context.sections),
            index.subject,
            history,
        )
        evidence.rules = " ".join(messages[0]["content"].lower().split())
        reply_context = ReplyContext(
            context.question,
            context.sections,
            evidence,
            context.answer_kind,
            lambda position: closest_line(context, position),
        )
        return Prepared(messages, reply_context)

    def lexicon(self, index: Index) -> Lexicon:
        """The site's word vectors for this index (and the sections read for it so far)."""
        key = id(index.word_vectors)
        known = self._lexicons.get(key)
        if known is None or known[0].word_vectors is not index.word_vectors:
            known = (index, Lexicon(index.word_rows, index.word_vectors))
            self._lexicons = {key: known}  # one index at a time: a live swap replaces it
        return known[1]

    def present(self, raw: str, prepared: Prepared, run: Run | None = None) -> Shown:
        """The reply as the visitor will see it (sitecite.generate.reply.present)."""
        shown = present(raw, prepared.reply_context, self.verifier, self.policy)
        if run is not None:
            run.checks.extend(shown.checks)
            if shown.verification is not None:
                run.time("verify", shown.verification.ms)
        return shown

    def _ask(self, link: Link, messages: list[dict[str, str]], run: Run) -> str | None:
        """One provider's reply text, once it holds an answer; a malformed reply is repaired
        or asked for once more."""
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
                return result.text
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

    def _fall_back(self, context: Context, prepared: Prepared, run: Run, prompt: str) -> Draft:
        """The extractive answer, verified like any other; a refusal if it has none."""
        draft = self.fallback.generate(context)
        run.checks.extend(draft.checks)
        name = draft.generator or "extractive"
        if draft.refused:
            reason = draft.refusal_reason or "fallback_refused"
            return self._draft(run, prompt, Shown("", (), True, reason), name)
        numbered = _renumber_to_context(draft.text, draft.cited)
        verification = self.verifier.verify(numbered, prepared.reply_context.evidence)
        run.time("verify", verification.ms)
        if not verification.claims:
            run.checks.append(
                Check("fallback", False, "the extractive answer did not verify either")
            )
            shown = pointing(prepared.reply_context, draft.cited, "unverified")
            return self._draft(run, prompt, shown, name)
        run.checks.append(
            Check(
                "fallback",
                True,
                f"extractive answer, {len(verification.sentences)} sentence(s) "
                f"checked, {len(verification.claims)} kept",
            )
        )
        carried = dict(zip(draft.cited, draft.quotes, strict=False))  # the extractive quotes
        quotes = tuple(carried.get(p, ()) for p in verification.cited)
        shown = Shown(
            verification.text, verification.cited, False, "", (), verification, False, quotes
        )
        return self._draft(run, prompt, shown, name)

    def _draft(self, run: Run, prompt: str, shown: Shown, generator: str) -> Draft:
        return Draft(
            shown.text,
            shown.cited,
            shown.refused,
            generator,
            refusal_reason=shown.reason,
            prompt=prompt,
            raw_output=run.raw_output,
            checks=tuple(run.checks),
            attempts=tuple(run.attempts),
            tokens=run.tokens,
            timings=dict(run.timings),
            quotes=shown.quotes,
        )


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
    verifier = Verifier(llm.support_threshold)
    return LLMGenerator(links, extractive, verifier, llm.verify_policy)


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
