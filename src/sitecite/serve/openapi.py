"""The OpenAPI schema of the HTTP API, built from pydantic models of the same contract.

The endpoints read and check requests by hand (see api.py), so the schema is not derived from
their signatures; these models are the single written description of the JSON shapes, and
tests check that real responses fit them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from sitecite.types import SCORE_LABEL


class TurnModel(BaseModel):
    question: str = Field(description="An earlier question (its resolved_question, if any).")
    answer: str = ""
    cited: list[str] = Field(default_factory=list, description="The ids it cited.")


class AskRequest(BaseModel):
    question: str = Field(min_length=1, examples=["Which city and country is she based in?"])
    history: list[TurnModel] = Field(
        default_factory=list,
        description="The conversation's earlier turns, oldest first; the last 3 are used to "
        "read a follow-up question.",
    )


class FeedbackRequest(BaseModel):
    id: str = Field(description="The id of an answer from /api/ask.")
    rating: Literal["up", "down"]
    reason: Literal["wrong", "not_what_i_asked", "outdated", "other"] | None = None
    text: str = Field("", max_length=500, description="Optional, with a thumbs down.")


class FeedbackModel(BaseModel):
    id: str
    rating: str
    reason: str
    recorded: bool


class StartersModel(BaseModel):
    questions: list[str]


class CitationModel(BaseModel):
    n: int
    id: str
    title: str
    heading: str
    url: str
    score: float
    quotes: list[str] = Field(
        default_factory=list, description="The words of the section the cited claim rests on."
    )


class RetrievedModel(BaseModel):
    id: str
    score: float
    rank: int
    admitted: bool


class AnswerModel(BaseModel):
    id: str = Field(description="This answer's id, for POST /api/feedback.")
    question: str
    resolved_question: str | None = Field(
        None, description="A follow-up as it was read with the previous question."
    )
    outcome: str = Field(
        description='"answered", "pointed" (no direct answer: the closest sections are cited) '
        'or "refused"'
    )
    refused: bool
    answer: str = Field(description="Answer text with citation markers like [1], or the refusal.")
    citations: list[CitationModel]
    score: float = Field(description=SCORE_LABEL + "; not a confidence")
    score_label: str = SCORE_LABEL
    generator: str
    latency_ms: float
    retrieved: list[RetrievedModel]


class ErrorDetail(BaseModel):
    code: str = Field(examples=["question_too_long"])
    message: str


class ErrorModel(BaseModel):
    error: ErrorDetail


class HealthModel(BaseModel):
    status: str = Field(description='"ok", or "degraded" when there are warnings')
    index_id: str
    embedder: str
    sections: int
    threshold: float
    updated: str
    generator: str
    shared_state: str = Field(description='"in-process", or "redis" (serve.redis_url)')
    warnings: list[str] = Field(description="e.g. Redis unreachable: limits are per process")
    llm_budget: dict[str, Any]
    question_log: bool


ASK_ERRORS = {
    "400": "The body is not valid UTF-8, not JSON, or not a JSON object.",
    "413": "The body is larger than serve.max_body_bytes.",
    "415": "The content type is not application/json (UTF-8).",
    "422": "The question is missing, empty, not a string or too long, or there are other fields.",
    "403": "The Origin is not in serve.allowed_origins.",
    "429": "Too many questions from this address; wait Retry-After seconds.",
    "503": "The server is busy (serve.queue_size questions waiting) or an LLM provider is "
    "down; wait Retry-After seconds.",
}


FEEDBACK_ERRORS = ("400", "403", "413", "415", "422", "429")


def openapi_schema(max_question_chars: int, version: str) -> dict[str, Any]:
    components: dict[str, Any] = {}

    def ref(model: type[BaseModel]) -> dict[str, str]:
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        components.update(schema.pop("$defs", {}))
        components[model.__name__] = schema
        return {"$ref": f"#/components/schemas/{model.__name__}"}

    def content(model: type[BaseModel]) -> dict[str, Any]:
        return {"application/json": {"schema": ref(model)}}

    ask_body = ref(AskRequest)
    components["AskRequest"]["properties"]["question"]["maxLength"] = max_question_chars
    errors = {
        status: {"description": text, "content": content(ErrorModel)}
        for status, text in ASK_ERRORS.items()
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "sitecite",
            "version": version,
            "description": "Answers questions about a site from its own pages, with a "
            "citation for every claim, or says that the site does not say.",
        },
        "paths": {
            "/api/ask": {
                "post": {
                    "summary": "Answer a question from the site, with citations, or refuse",
                    "operationId": "ask",
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": ask_body}},
                    },
                    "responses": {
                        "200": {
                            "description": "An answer, or a refusal (refused: true).",
                            "content": content(AnswerModel),
                        },
                        **errors,
                    },
                }
            },
            "/api/feedback": {
                "post": {
                    "summary": "A visitor's thumbs up or down on one answer",
                    "operationId": "feedback",
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": ref(FeedbackRequest)}},
                    },
                    "responses": {
                        "202": {"description": "Recorded.", "content": content(FeedbackModel)},
                        "404": {
                            "description": "No such answer, or the server keeps no log.",
                            "content": content(ErrorModel),
                        },
                        **{code: errors[code] for code in FEEDBACK_ERRORS},
                    },
                }
            },
            "/api/starters": {
                "get": {
                    "summary": "Questions to start with, for the empty palette",
                    "operationId": "starters",
                    "responses": {
                        "200": {"description": "The questions.", "content": content(StartersModel)}
                    },
                }
            },
            "/api/health": {
                "get": {
                    "summary": "Which index is being served",
                    "operationId": "health",
                    "responses": {
                        "200": {
                            "description": "The index being served.",
                            "content": content(HealthModel),
                        }
                    },
                }
            },
        },
        "components": {"schemas": components},
    }
