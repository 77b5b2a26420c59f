"""Settings: flags, then sitecite.toml, then SITECITE_* environment variables, then defaults.

A dotted key maps to an upper-case variable (`llm.base_url` -> `SITECITE_LLM_BASE_URL`).
An unknown key, an unknown SITECITE_* variable or a bad value is a ConfigError that names it
(and the nearest key, when one is close). docs/settings.md describes every key.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sitecite.errors import ConfigError

DEFAULT_EMBEDDER = "sentence-transformers/all-MiniLM-L6-v2"
CONFIG_FILE = "sitecite.toml"
ENV_PREFIX = "SITECITE_"
# SITECITE_* variables that are not settings, and keys that were renamed.
OTHER_VARIABLES = {
    "SITECITE_PROGRESS": "show progress bars even when stderr is not a terminal",
    "SITECITE_CACHE_DIR": "where a model's graph built at its first use is kept (embed/graphs.py)",
}
RENAMED = {"serve.torch_threads": "torch_threads"}
REMOVED = {"index.sentence_vectors": "sentence vectors are always stored (verification needs them)"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class LLMSettings(_Strict):
    """One OpenAI-compatible chat-completions provider, plus the chain of fallbacks after it.

    `provider` names a known service (groq, openai, gemini, ollama, ...) instead of a base_url;
    `support_threshold` overrides the support model's threshold: the least probability of
    being unsupported at which verification drops a claim (lower drops more)."""

    provider: str = ""
    base_url: str = ""
    model: str = ""
    api_key: str = ""
    api_key_env: str = ""
    fallbacks: list[str | dict[str, Any]] = Field(default_factory=list)
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(600, ge=16, le=32768)
    timeout_seconds: float = Field(20.0, gt=0)
    retries: int = Field(2, ge=0, le=10)
    reasoning_effort: Literal["", "low", "medium", "high"] = ""
    json_mode: bool = True
    breaker_failures: int = Field(3, ge=1)
    breaker_cooldown_seconds: float = Field(60.0, ge=0)
    verify_policy: Literal["drop", "fallback", "refuse"] = "drop"
    support_threshold: float | None = Field(None, ge=0.0, le=1.0)


class JudgeSettings(_Strict):
    base_url: str = ""
    model: str = ""
    api_key: str = ""
    api_key_env: str = ""
    timeout_seconds: float = Field(30.0, gt=0)
    retries: int = Field(2, ge=0, le=10)


class RetrieveSettings(_Strict):
    """How dense and BM25 scores are fused. The defaults won a search on SciFact's train split
    (`python -m training.tune_retrieval`): min-max convex fusion at 0.5 over the top 100 of each,
    BM25 with stemming and without stop-word removal. `ann = "hnsw"` needs the `ann` extra."""

    fusion: Literal["convex", "rrf", "dense", "bm25"] = "convex"
    alpha: float = Field(0.5, ge=0.0, le=1.0)
    rrf_k: int = Field(60, ge=1)
    candidates: int = Field(100, ge=1)
    # the sections closest by meaning that are always among the top k: BM25 keeps stop words
    # (SciFact's choice), so a question's common words can push them out of a small site's top k
    dense_floor: int = Field(2, ge=0)
    stemmer: str = "english"
    stopwords: str = ""
    ann: Literal["exact", "hnsw"] = "exact"


class IndexSettings(_Strict):
    """How citation URLs are built (`routes`: "REGEX => TEMPLATE" rules, first match wins,
    before the detected `presets` and the catch-all `route`) and how live sites are fetched."""

    base_url: str = ""
    route: str = "{page_id}"
    routes: list[str] = Field(default_factory=list)
    presets: bool = True
    # heading ids: "auto" (the detected generator's rule), or one of ingest.ids.ANCHOR_STYLES
    anchors: Literal[
        "auto", "github", "kramdown", "vitepress", "markdown-it-anchor", "pandoc", "none"
    ] = "auto"
    crawl_concurrency: int = Field(4, ge=1, le=32)
    crawl_requests_per_second: float = Field(4.0, gt=0)
    crawl_max_pages: int = Field(2000, ge=1)
    crawl_timeout_seconds: float = Field(20.0, gt=0)
    user_agent: str = ""
    watch_debounce_ms: int = Field(1000, ge=50)
    batch_size: int = Field(32, ge=1)  # texts per embedding call while indexing


class ServeSettings(_Strict):
    """The HTTP server. A rate limit, cache TTL or cache size of 0 turns that feature off;
    `trusted_proxies` (addresses or CIDR ranges) are the only peers whose `proxy_header` is
    believed; `workers` threads run inference (each embedding on `torch_threads` threads) and at
    most `queue_size` questions wait for them. `redis_url` shares the rate limit, the answer
    cache and in-flight de-duplication between replicas (the `redis` extra)."""

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65535)
    rate_limit_per_minute: float = Field(20, ge=0)
    cache_ttl_seconds: float = Field(3600, ge=0)
    cache_size: int = Field(1024, ge=0)
    max_question_chars: int = Field(500, ge=1)
    max_body_bytes: int = Field(16384, ge=64)
    cors_origins: list[str] = Field(default_factory=list)
    trusted_proxies: list[str] = Field(default_factory=list)
    proxy_header: str = "x-forwarded-for"
    workers: int = Field(2, ge=1)
    queue_size: int = Field(64, ge=1)
    index_poll_seconds: float = Field(1.0, gt=0)
    redis_url: str = ""
    redis_prefix: str = "sitecite"
    # The owner's loop (docs: README "The owner's loop"): the question log, feedback, starter
    # questions, the daily digest, and what protects the owner's LLM budget.
    log: str | None = None  # None: SQLite beside the index; "": off; "sqlite:///PATH"
    log_days: int = Field(90, ge=1)
    log_visitors: bool = False
    starter_questions: list[str] = Field(default_factory=list)
    notify_url: str = ""
    notify_hour: int = Field(8, ge=0, le=23)
    allowed_origins: list[str] = Field(default_factory=list)
    daily_llm_budget: int | str = 0

    @field_validator("daily_llm_budget")
    @classmethod
    def _budget(cls, value: int | str) -> int | str:
        parse_budget(value)
        return value


def parse_budget(value: int | str) -> tuple[int, str]:
    """`serve.daily_llm_budget` as (amount, "calls" | "tokens"): 500, "500 calls" or
    "200000 tokens"; 0 means no budget."""
    if isinstance(value, int):
        amount, unit = value, "calls"
    else:
        parts = value.replace("_", "").replace(",", "").split()
        if not parts or len(parts) > 2 or not parts[0].isdigit():
            raise ValueError(f"'{value}' is not a number of calls or tokens, e.g. '500 calls'")
        amount = int(parts[0])
        unit = parts[1].lower() if len(parts) == 2 else "calls"
        unit = {"call": "calls", "token": "tokens"}.get(unit, unit)
        if unit not in ("calls", "tokens"):
            raise ValueError(f"'{value}': the unit must be calls or tokens")
    if amount < 0:
        raise ValueError(f"{amount} is negative")
    return amount, unit


class EvalSettings(_Strict):
    requests_per_minute: float = Field(0, ge=0)
    concurrency: int = Field(1, ge=1)


class Settings(_Strict):
    """All settings. Every field here is a key users may set."""

    generator: Literal["extractive", "llm"] = "extractive"
    embedder: str = DEFAULT_EMBEDDER
    embedder_base_url: str = ""
    embedder_api_key: str = ""
    embedder_backend: Literal["auto", "onnx", "torch"] = "auto"
    k: int = Field(8, ge=1, le=100)
    threshold: float | None = Field(None, ge=-1.0, le=1.0)
    sentence_threshold: float | None = Field(None, ge=-1.0, le=1.0)
    coverage_threshold: float | None = Field(None, ge=0.0, le=1.0)
    max_answer_sentences: int = Field(3, ge=1, le=10)
    answerable_threshold: float | None = Field(None, ge=0.0, le=1.0)
    # which extractive answers are given directly (the others point at the closest sections)
    direct_answers: Literal["sure", "any"] = "sure"
    torch_threads: int = Field(1, ge=1)  # threads per embedding call, onnxruntime or torch
    llm: LLMSettings = Field(default_factory=lambda: LLMSettings())
    judge: JudgeSettings = Field(default_factory=lambda: JudgeSettings())
    retrieve: RetrieveSettings = Field(default_factory=lambda: RetrieveSettings())
    index: IndexSettings = Field(default_factory=lambda: IndexSettings())
    serve: ServeSettings = Field(default_factory=lambda: ServeSettings())
    eval: EvalSettings = Field(default_factory=lambda: EvalSettings())


def all_keys(
    model: type[BaseModel] = Settings, prefix: str = ""
) -> dict[str, type[BaseModel] | None]:
    """Every dotted key that may be set, mapped to its nested model (None for leaves)."""
    keys: dict[str, type[BaseModel] | None] = {}
    for name, info in model.model_fields.items():
        dotted = f"{prefix}{name}"
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            keys.update(all_keys(annotation, f"{dotted}."))
        else:
            keys[dotted] = None
    return keys


def env_name(dotted: str) -> str:
    return ENV_PREFIX + dotted.replace(".", "_").upper()


def _set_dotted(target: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    for part in parts[:-1]:
        target = target.setdefault(part, {})
    target[parts[-1]] = value


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and not _is_leaf(dotted):
            flat.update(_flatten(value, f"{dotted}."))
        else:
            flat[dotted] = value
    return flat


def _is_leaf(dotted: str) -> bool:
    return dotted in all_keys()


def _parse_env_value(dotted: str, raw: str) -> Any:
    """Environment values are strings; lists may be given as JSON or comma-separated."""
    field_type = _leaf_annotation(dotted)
    if "list" in str(field_type):
        raw = raw.strip()
        if raw.startswith("["):
            import json

            try:
                return json.loads(raw)
            except ValueError as exc:
                raise ConfigError(f"{env_name(dotted)}: not a JSON list ({exc})") from exc
        return [part.strip() for part in raw.split(",") if part.strip()]
    return raw


def _leaf_annotation(dotted: str) -> Any:
    model: type[BaseModel] = Settings
    parts = dotted.split(".")
    for part in parts[:-1]:
        model = model.model_fields[part].annotation  # type: ignore[assignment]
    return model.model_fields[parts[-1]].annotation


def read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from exc


def load_settings(
    flags: Mapping[str, Any] | None = None,
    config_file: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Merge the four sources, highest priority first: flags, file, environment, defaults."""
    environ = os.environ if environ is None else environ
    known = all_keys()
    merged: dict[str, Any] = {}

    by_variable = {env_name(key): key for key in known}
    unknown_variables = []
    for name, raw in environ.items():
        if not name.startswith(ENV_PREFIX) or name in OTHER_VARIABLES:
            continue
        if name in by_variable:
            merged[by_variable[name]] = _parse_env_value(by_variable[name], raw)
        else:
            unknown_variables.append(name)

    path = Path(config_file) if config_file else Path(CONFIG_FILE)
    if config_file or path.exists():
        for dotted, value in _flatten(read_toml(path)).items():
            if dotted not in known:
                raise ConfigError(f"{path}: {unknown_key(dotted)}")
            merged[dotted] = value

    for dotted, value in (flags or {}).items():
        if value is None:
            continue
        if dotted not in known:
            raise ConfigError(unknown_key(dotted))
        merged[dotted] = value

    nested: dict[str, Any] = {}
    for dotted, value in merged.items():
        _set_dotted(nested, dotted, value)
    _check_variables(unknown_variables, nested, by_variable)
    try:
        return Settings.model_validate(nested)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(part) for part in first["loc"])
        raise ConfigError(f"bad setting '{key}': {first['msg']}") from exc


def unknown_key(dotted: str) -> str:
    """The message for a key that is not a setting: its new name, or the nearest one."""
    if dotted in RENAMED:
        return f"unknown setting '{dotted}': it is now '{RENAMED[dotted]}'"
    if dotted in REMOVED:
        return f"unknown setting '{dotted}': no longer a setting; {REMOVED[dotted]}"
    near = difflib.get_close_matches(dotted, all_keys(), n=1)
    return f"unknown setting '{dotted}'" + (f" (did you mean '{near[0]}'?)" if near else "")


def _check_variables(
    unknown: list[str], nested: Mapping[str, Any], by_variable: Mapping[str, str]
) -> None:
    """A SITECITE_* variable that is no setting is an error, unless a `*.api_key_env` setting
    names it (a key may live in any variable)."""
    named = set(_values_of("api_key_env", nested))
    for name in sorted(set(unknown) - named):
        dotted = name.removeprefix(ENV_PREFIX).lower().replace("_", ".")
        renamed = next((old for old in RENAMED if env_name(old) == name), None)
        if renamed is not None:
            hint = f": it is now {env_name(RENAMED[renamed])}"
        else:
            near = difflib.get_close_matches(
                name, [*by_variable, *OTHER_VARIABLES], n=1, cutoff=0.8
            )
            hint = f" (did you mean {near[0]}?)" if near else f" (no setting '{dotted}')"
        raise ConfigError(f"unknown environment variable {name}{hint}")


def _values_of(key: str, data: Any) -> list[str]:
    if isinstance(data, Mapping):
        found = [str(v) for k, v in data.items() if k == key and v]
        return found + [x for v in data.values() for x in _values_of(key, v)]
    if isinstance(data, list):
        return [x for item in data for x in _values_of(key, item)]
    return []


def check_base_url(base_url: str, key: str = "llm.base_url") -> str:
    """The URL without a trailing slash, or a ConfigError naming the setting."""
    url = base_url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"bad setting '{key}': '{base_url}' is not an http:// or https:// URL")
    return url
