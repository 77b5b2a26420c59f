"""Grade one Answer and its Trace against a question: checks per category, retrieval metrics from
the trace's own hits, the judge's verdict on the trace's own context. Nothing is retrieved here.

A question passes when every graded check passes; the checks the pipeline itself recorded in the
Trace (gate, instructions, support, ...) are shown beside them but do not grade, because a
failed step there usually *is* the correct refusal.
"""

from __future__ import annotations

from typing import Any

from sitecite.eval.metrics import matches, retrieval_metrics
from sitecite.eval.presentable import presentable
from sitecite.eval.questions import Question, describe_group, missing_groups
from sitecite.types import Answer, Citation, Trace


def grade(
    question: Question,
    answer: Answer,
    trace: Trace,
    judge: dict[str, Any] | None = None,
    repeat: int = 0,
) -> dict[str, Any]:
    """The result entry of DESIGN.md "Eval results" for one question (one repeat)."""
    retrieved = [_hit_json(hit) for hit in trace.hits]
    checks = answer_checks(question, answer, trace)
    if judge is not None and "verdict" in judge and not answer.refused:
        verdict = judge["verdict"]
        claims = verdict.get("hallucinated_claims") or []
        checks["judge"] = {
            "passed": bool(verdict.get("faithful")) and not claims,
            "detail": "faithful"
            if verdict.get("faithful") and not claims
            else f"unsupported: {'; '.join(claims) or 'judged unfaithful'}",
        }
    passed = all(check["passed"] for check in checks.values())
    for check in trace.checks:
        checks[f"trace:{check.name}"] = {
            "passed": check.passed,
            "detail": check.detail,
            "grades": False,
        }
    return {
        **_question_fields(question, repeat),
        "retrieved": retrieved,
        "context_ids": [section.id for section in trace.context],
        "outcome": str(answer.outcome),
        "refused": answer.refused,
        "refusal_reason": answer.refusal_reason,
        "answer": answer.answer,
        "generator": trace.generator,
        "citations": [_citation_json(c) for c in answer.citations],
        "checks": checks,
        "judge": _judge_json(judge),
        "metrics": retrieval_metrics(retrieved, question.expected_sources),
        "passed": passed,
        "latency_ms": round(answer.latency_ms, 3),
        "timings_ms": {k: round(v, 3) for k, v in trace.timings_ms.items()},
        "tokens": token_counts(trace.tokens),
        "threshold": trace.threshold,
    }


def _question_fields(question: Question, repeat: int) -> dict[str, Any]:
    """What a result repeats of its question."""
    return {
        "id": question.id,
        "category": question.category,
        "expect": question.expect,
        "attack": question.attack,
        "question": question.question,
        "repeat": repeat,
        "expected_sources": list(question.expected_sources),
        "allowed_sources": list(question.allowed_sources),
    }


def error_result(question: Question, message: str, repeat: int = 0) -> dict[str, Any]:
    """A question the pipeline could not answer at all (e.g. every provider failed): it fails."""
    return {
        **_question_fields(question, repeat),
        "retrieved": [],
        "context_ids": [],
        "outcome": "error",
        "refused": False,
        "refusal_reason": "",
        "answer": "",
        "generator": "",
        "citations": [],
        "checks": {"pipeline": {"passed": False, "detail": message}},
        "judge": None,
        "metrics": retrieval_metrics([], question.expected_sources),
        "passed": False,
        "latency_ms": 0.0,
        "timings_ms": {},
        "tokens": {"prompt": 0, "output": 0},
        "threshold": None,
        "error": message,
    }


def answer_checks(question: Question, answer: Answer, trace: Trace) -> dict[str, dict[str, Any]]:
    """The graded checks: expectation, citations, key facts, presentability, forbidden strings."""
    checks: dict[str, dict[str, Any]] = {}
    content = _content_checks(question, answer, trace)
    if question.expect == "refuse":
        checks["refused"] = _check(
            answer.refused,
            f"refused ({answer.refusal_reason})"
            if answer.refused
            else "answered instead of refusing",
        )
    elif question.expect == "answer":
        checks["answered"] = _check(
            not answer.refused,
            "answered" if not answer.refused else f"refused ({answer.refusal_reason})",
        )
        if not answer.refused:
            checks.update(content)
    else:  # either: a refusal, or an answer that passes every content check
        if answer.refused:
            checks["refused_or_correct"] = _check(True, f"refused ({answer.refusal_reason})")
        else:
            failed = [name for name, check in content.items() if not check["passed"]]
            checks["refused_or_correct"] = _check(
                not failed,
                "answered correctly"
                if not failed
                else f"answered, but failed: {', '.join(failed)}",
            )
            checks.update(content)
    if question.must_not_contain:
        lowered = answer.answer.lower()
        found = [s for s in question.must_not_contain if s.lower() in lowered]
        checks["must_not_contain"] = _check(
            not found,
            f"contains: {', '.join(found)}" if found else "none of the forbidden strings appear",
        )
    return checks


def _content_checks(question: Question, answer: Answer, trace: Trace) -> dict[str, dict[str, Any]]:
    checks: dict[str, dict[str, Any]] = {}
    cited = list(answer.citations)
    context_ids = {section.id for section in trace.context}
    outside = [c.id for c in cited if c.id not in context_ids]
    checks["cites_context"] = _check(
        not outside,
        f"cited outside the context: {', '.join(outside)}"
        if outside
        else "every citation is a section the generator saw",
    )
    checks["presentable"] = _check(*presentable(answer.answer, trace.context))
    if question.expected_sources:
        covered = [s for s in question.expected_sources if any(_cites(c, s) for c in cited)]
        if question.category == "multi":
            missing = [s for s in question.expected_sources if s not in covered]
            checks["cites_expected"] = _check(
                not missing,
                f"not cited: {', '.join(missing)}"
                if missing
                else f"cites all of {', '.join(covered)}",
            )
        else:
            checks["cites_expected"] = _check(
                bool(covered),
                f"cites {', '.join(covered)}" if covered else "cites none of the expected sources",
            )
        allowed = (*question.expected_sources, *question.allowed_sources)
        stray = [c.id for c in cited if not any(_cites(c, s) for s in allowed)]
        checks["cites_only_allowed"] = _check(
            not stray,
            f"also cites: {', '.join(stray)}" if stray else "only expected or allowed sources",
        )
    if question.must_contain:
        absent = missing_groups(question.must_contain, answer.answer)
        checks["answers"] = _check(
            not absent,
            f"missing: {'; '.join(describe_group(g) for g in absent)}"
            if absent
            else f"states all {len(question.must_contain)} key fact(s)",
        )
    return checks


def _cites(citation: Citation, source: str) -> bool:
    page_id = citation.id.split("#", 1)[0]
    return matches(source, citation.id, page_id)


def _check(passed: bool, detail: str) -> dict[str, Any]:
    return {"passed": bool(passed), "detail": detail}


def _hit_json(hit: Any) -> dict[str, Any]:
    data = hit.to_json()
    data.update(
        page_id=hit.section.page_id,
        title=hit.section.title,
        heading=hit.section.heading,
        url=hit.section.url,
    )
    return data


def _citation_json(citation: Citation) -> dict[str, Any]:
    return citation.to_json()  # with its quotes, which the lab shows beside the answer


def _judge_json(judge: dict[str, Any] | None) -> dict[str, Any] | None:
    if judge is None:
        return None
    if "verdict" in judge:
        return {
            **judge["verdict"],
            "cached": judge.get("cached", False),
            "attempts": judge.get("attempts", 1),
            "tokens": judge.get("tokens", {}),
        }
    return {
        "could_not_grade": True,
        "error": judge.get("error", "unknown"),
        "attempts": judge.get("attempts", 0),
        "tokens": judge.get("tokens", {}),
    }


def token_counts(tokens: dict[str, int]) -> dict[str, int]:
    """Prompt and output tokens, whichever naming the generator used."""
    prompt = tokens.get("prompt", tokens.get("prompt_tokens", 0))
    output = tokens.get("output", tokens.get("output_tokens", tokens.get("completion_tokens", 0)))
    return {"prompt": int(prompt or 0), "output": int(output or 0)}
