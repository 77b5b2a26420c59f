"""From a provider's raw reply to what a visitor sees: the one function the LLM generator and the
verification benchmark (bench/verify_replies.py) both call, so the benchmark replays production.

    raw text -> parse_reply -> verify every sentence -> policy -> Shown

A quoted reply is verified sentence by sentence against its quotes (Verifier.verify_quoted),
the older unquoted one against whole sections (Verifier.verify); the Trace's `reply_format`
check says which it was and what of it could not be read.

The policy (`llm.verify_policy`): `drop` shows the verified sentences when some claim is left
(and it has the kind of answer asked for); `refuse` refuses whenever a sentence fails;
`fallback` hands over to the extractive answer. A draft that only says what the site does not
cover is shown as a refusal in the model's words; when nothing verified is left, the reply is
the pointed one the extractive generator gives (sitecite.generate.pointer): no direct
answer, the closest sections cited, each with its line nearest the question as the quote.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sitecite.generate.parse import ModelReply, parse_reply
from sitecite.generate.pointer import closest_sections, pointer_text
from sitecite.ingest.kinds import QUOTABLE
from sitecite.types import Check, RefusalReason, Section
from sitecite.verify import Evidence, Verification, Verifier

POLICIES = ("drop", "fallback", "refuse")


@dataclass(frozen=True)
class ReplyContext:
    """What turning a reply into an answer needs: the question, the context's sections as the
    model saw them, and what they vouch for."""

    question: str
    sections: Sequence[Section]
    evidence: Evidence
    answer_kind: str = ""
    closest: Callable[[int], str] | None = None  # a section's line nearest the question

    def line(self, position: int) -> str:
        """The line of a context section a pointed reply quotes: nearest the question by
        meaning (`closest`, from the index), else the sentence sharing most of the
        question's rarer words."""
        if self.closest is not None:
            return self.closest(position)
        section = self.evidence.sections[position]
        kinds = self.sections[position].sentence_kinds
        scored = [
            (sum(self.evidence.weight(w) for w in r.stems & self.evidence.question), -n, r.text)
            for n, r in enumerate(section.sentences)
            if n >= len(kinds) or kinds[n] in QUOTABLE
        ]
        best = max(scored, default=(0.0, 0, ""))
        return best[2] if best[0] > 0 else ""


@dataclass(frozen=True)
class Shown:
    """What a visitor sees for one reply, and why."""

    text: str  # the answer, or the refusal's own words ("" for the standard refusal)
    cited: tuple[int, ...]  # context positions, in the order of the shown [n]
    refused: bool
    reason: str  # "" when answered; else not_on_site, unverified, malformed, ...
    checks: tuple[Check, ...] = ()
    verification: Verification | None = None
    fallback: bool = False  # the policy hands over to the extractive answer
    quotes: tuple[tuple[str, ...], ...] = ()  # per entry of `cited`, the source words quoted


def present(raw: object, context: ReplyContext, verifier: Verifier, policy: str = "drop") -> Shown:
    """Parse, verify and apply the policy to one reply; never raises for the reply's sake."""
    reply = parse_reply(raw)
    if reply is None:
        return Shown("", (), True, "malformed", (Check("llm", False, "no answer in the reply"),))
    read = reply_format(reply)
    if reply.not_on_site:
        declined = (read, Check("llm", True, "replied NOT_ON_SITE"))
        return Shown("", (), True, "not_on_site", declined)
    if reply.sentences is not None:
        verification = verifier.verify_quoted(reply.sentences, context.evidence)
    else:
        verification = verifier.verify(reply.answer, context.evidence, reply.citations)
    checks = (read, *verification.checks)
    failed = sum(not s.ok for s in verification.sentences)
    total = len(verification.sentences)
    if not total:
        return pointing(context, (), "unverified", (*checks, _policy(False, "an empty answer")))
    if failed and policy == "refuse":
        note = _policy(False, f"refuse: {failed} of {total} sentence(s) failed")
        cited = _cited_by_draft(verification)
        return pointing(context, cited, "unverified", (*checks, note), verification)
    if failed and policy == "fallback":
        note = _policy(False, f"fallback: {failed} sentence(s) failed; extractive answer instead")
        return Shown("", (), True, "unverified", (*checks, note), verification, fallback=True)
    return _dropped(verification, context, checks, failed, total)


def _dropped(
    verification: Verification,
    context: ReplyContext,
    checks: tuple[Check, ...],
    failed: int,
    total: int,
) -> Shown:
    """The `drop` policy: what verified, if it still answers; else an honest refusal."""
    claims = verification.claims
    if claims:
        note = (
            _policy(True, "every sentence verified")
            if not failed
            else _policy(False, f"drop: removed {failed} of {total} sentence(s); the rest answers")
        )
        return Shown(
            verification.text,
            verification.cited,
            False,
            "",
            (*checks, note),
            verification,
            quotes=verification.quotes,
        )
    if not claims and verification.text:  # only what the sources do not say: a refusal
        note = _policy(not failed, "the answer says what the sources do not cover")
        return Shown(
            verification.text,
            verification.cited,
            True,
            "not_on_site",
            (*checks, note),
            verification,
            quotes=verification.quotes,
        )
    note = _policy(
        False, "drop: nothing verified is left; refused, pointing at the closest sections"
    )
    cited = _cited_by_draft(verification)
    return pointing(context, cited, "unverified", (*checks, note), verification)


def pointing(
    context: ReplyContext,
    preferred: Sequence[int],
    reason: str,
    checks: tuple[Check, ...] = (),
    verification: Verification | None = None,
) -> Shown:
    """The pointed reply, as the extractive generator gives it (sitecite.generate.pointer): no
    direct answer, the closest sections named and cited (those the draft cited first), each
    with its line nearest the question as the quote. With no section to name, a bare refusal
    for `reason`."""
    positions = closest_sections(context.sections, first=list(dict.fromkeys(preferred)))
    if not positions:
        return Shown("", (), True, reason, checks, verification)
    lines = [context.line(p) for p in positions]
    quotes = tuple((line,) if line else () for line in lines)
    text = pointer_text(context.sections, positions)
    return Shown(
        text,
        tuple(positions),
        True,
        RefusalReason.NO_DIRECT_ANSWER,
        checks,
        verification,
        quotes=quotes,
    )


def _cited_by_draft(verification: Verification) -> list[int]:
    """The context positions the draft cited, first use first."""
    return list(dict.fromkeys(p for s in verification.sentences for p in s.cited))


def reply_format(reply: ModelReply) -> Check:
    """Which contract the reply followed, and what of it could not be read as asked."""
    if reply.sentences is None:
        detail = 'unquoted: the older {"answer", "citations"} reply, read against whole sections'
    else:
        quotes = sum(bool(c.quote) for s in reply.sentences for c in s.cites)
        detail = f"quoted: {len(reply.sentences)} sentence(s), {quotes} quote(s)"
    if reply.unread:
        detail += "; could not read as asked: " + "; ".join(reply.unread)
    return Check("reply_format", not reply.unread, detail)


def _policy(passed: bool, detail: str) -> Check:
    return Check("verify_policy", passed, detail)
