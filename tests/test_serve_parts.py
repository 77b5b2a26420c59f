"""The serving parts on their own: token bucket, client address, cache, request parsing, pages."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitecite.config import load_settings
from sitecite.index.store import Index
from sitecite.serve.api import parse_question
from sitecite.serve.cache import AnswerCache
from sitecite.serve.errors import ApiError
from sitecite.serve.limits import ClientAddress, RateLimiter
from sitecite.serve.pages import home_page, site_page
from sitecite.serve.public_settings import REDACTED, redact, settings_toml
from sitecite.types import Section


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_bucket_allows_a_burst_then_one_per_interval_with_exact_retry_after() -> None:
    clock = Clock()
    limiter = RateLimiter(20, clock=clock)
    assert all(limiter.take("a").allowed for _ in range(20))
    refused = limiter.take("a")
    assert not refused.allowed and refused.retry_after == 3  # one token per 3 s
    clock.now += 2.9
    assert not limiter.take("a").allowed
    clock.now += 0.1
    assert limiter.take("a").allowed
    assert limiter.take("b").allowed, "buckets are per address"


def test_retry_after_is_always_enough() -> None:
    clock = Clock()
    limiter = RateLimiter(7, clock=clock)
    for _ in range(7):
        limiter.take("a")
    for _ in range(5):
        verdict = limiter.take("a")
        assert not verdict.allowed
        clock.now += verdict.retry_after
        assert limiter.take("a").allowed
        clock.now += 0.01


def test_zero_rate_limit_means_no_limit_and_bucket_count_is_bounded() -> None:
    assert all(RateLimiter(0).take("a").allowed for _ in range(1000))
    limiter = RateLimiter(5, max_clients=3)
    for n in range(10):
        limiter.take(f"10.0.0.{n}")
    assert len(limiter._buckets) == 3


def test_forwarded_addresses_are_believed_only_from_trusted_proxies() -> None:
    header = [(b"x-forwarded-for", b"1.2.3.4, 198.51.100.9, 10.0.0.2")]
    untrusted = ClientAddress([], "x-forwarded-for")
    assert untrusted.resolve("127.0.0.1", header) == "127.0.0.1"
    proxies = ClientAddress(["10.0.0.0/8", "127.0.0.1"], "X-Forwarded-For")
    assert proxies.resolve("203.0.113.5", header) == "203.0.113.5", "peer is not a proxy"
    # right-most address that is not a trusted proxy: the client chose everything left of it
    assert proxies.resolve("127.0.0.1", header) == "198.51.100.9"
    assert proxies.resolve("127.0.0.1", []) == "127.0.0.1"
    assert proxies.resolve("127.0.0.1", [(b"x-forwarded-for", b"garbage")]) == "127.0.0.1"
    assert (
        proxies.resolve("127.0.0.1", [(b"x-forwarded-for", b"[2001:db8::1]:443")]) == "2001:db8::1"
    )
    real_ip = ClientAddress(["127.0.0.1"], "x-real-ip")
    assert real_ip.resolve("127.0.0.1", [(b"x-real-ip", b"192.0.2.7")]) == "192.0.2.7"


def test_cache_expires_and_evicts_least_recently_used() -> None:
    clock = Clock()
    cache = AnswerCache(size=2, ttl_seconds=60, clock=clock)
    cache.put("i:a", b"A")
    cache.put("i:b", b"B")
    assert cache.get("i:a") == b"A"
    cache.put("i:c", b"C")  # evicts b, the least recently used
    assert cache.get("i:b") is None and cache.get("i:a") == b"A"
    clock.now += 60
    assert cache.get("i:a") is None and len(cache) == 1
    assert not AnswerCache(size=0, ttl_seconds=60).enabled
    assert not AnswerCache(size=10, ttl_seconds=0).enabled


def _code(body: bytes, content_type: str | None = "application/json", max_chars: int = 500) -> str:
    with pytest.raises(ApiError) as caught:
        parse_question(body, content_type, max_chars)
    assert caught.value.message
    return caught.value.code


def test_parse_question_names_each_problem() -> None:
    assert (
        parse_question(b'{"question": "  Where   is she?  "}', "application/json", 500)
        == "Where is she?"
    )
    assert parse_question(b'{"question": "x"}', "Application/JSON; charset=UTF-8", 500) == "x"
    assert parse_question('\ufeff{"question": "x"}'.encode(), "application/json", 500) == "x"
    assert _code(b'{"question": "x"}', None) == "unsupported_media_type"
    assert _code(b'{"question": "x"}', "text/plain") == "unsupported_media_type"
    assert _code(b'{"question": "x"}', "application/json; charset=latin-1") == "unsupported_charset"
    assert _code(b'{"question": "caf\xe9"}') == "invalid_utf8"
    assert _code(b"") == "empty_body"
    assert _code(b"{question: x}") == "invalid_json"
    assert _code(b"[" * 100_000) == "invalid_json"
    assert _code(b'["question"]') == "invalid_body"
    assert _code(b"null") == "invalid_body"
    assert _code(b"{}") == "missing_question"
    assert _code(b'{"q": "x"}') == "unknown_field"
    assert _code(b'{"question": 5}') == "question_not_string"
    assert _code(b'{"question": null}') == "question_not_string"
    assert _code(b'{"question": ["x"]}') == "question_not_string"
    assert _code(b'{"question": ""}') == "empty_question"
    assert _code(b'{"question": " \\n\\t "}') == "empty_question"
    assert _code(json.dumps({"question": "x" * 501}).encode()) == "question_too_long"
    assert _code(json.dumps({"question": "x" * 11}).encode(), max_chars=10) == "question_too_long"
    assert _code(b'{"question": "\\ud800 hi"}') == "invalid_question"
    assert _code(b'{"question": 1' + b"0" * 5000 + b"}") == "invalid_json"


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=200),
        st.builds(
            lambda v: json.dumps(v).encode(),
            st.recursive(
                st.none() | st.booleans() | st.floats() | st.text(max_size=30),
                lambda children: (
                    st.lists(children, max_size=3)
                    | st.dictionaries(st.text(max_size=10), children, max_size=3)
                ),
                max_leaves=10,
            ),
        ),
    ),
    st.sampled_from(["application/json", "text/plain", None, "application/json; charset=x"]),
)
def test_parse_question_only_ever_returns_a_string_or_raises_a_4xx(
    body: bytes, content_type: str | None
) -> None:
    try:
        question = parse_question(body, content_type, 500)
    except ApiError as error:
        assert 400 <= error.status < 500 and error.code and error.message
    else:
        assert isinstance(question, str) and question and len(question) <= 500


def test_printed_settings_hide_secrets_and_read_as_toml() -> None:
    secrets = load_settings(
        {
            "llm.api_key": "sk-SECRET-LLM",
            "judge.api_key": "sk-SECRET-JUDGE",
            "embedder_api_key": "sk-SECRET-EMB",
            "llm.base_url": "https://alice:pa55word@llm.example/v1?api_key=sk-SECRET-QUERY&region=eu",
            "llm.fallbacks": [
                {"base_url": "https://x.example/v1", "model": "m", "api_key": "sk-SECRET-FB"}
            ],
            "serve.redis_url": "redis://:sk-SECRET-REDIS@10.0.0.5:6379/0",
        },
        config_file=None,
        environ={},
    )
    shown = json.dumps(redact(secrets.model_dump()))
    table = settings_toml(secrets)
    for text in (shown, table):
        for secret in ("sk-SECRET", "pa55word", "alice"):
            assert secret not in text
    assert REDACTED in table and "llm.example/v1" in table and "region=eu" in table
    printed = tomllib.loads(table)
    assert printed["serve"]["rate_limit_per_minute"] == secrets.serve.rate_limit_per_minute
    assert printed["llm"]["fallbacks"][0]["model"] == "m"
    assert "serve.rate_limit_per_minute" in table and "redis://10.0.0.5:6379/0" in table


def _index(sections: list[Section]) -> Index:
    vectors = np.zeros((len(sections), 4), dtype=np.float32)
    return Index(
        Path("/nowhere"),
        {"index_id": "abc123"},
        sections,
        vectors,
        vectors,
        np.zeros(len(sections) + 1, dtype=np.int64),
    )


def _section(id: str, title: str, heading: str, text: str, url: str) -> Section:
    return Section(id, id.split("#")[0], title, heading, url, text, "h")


def test_site_pages_put_each_section_at_its_anchor_and_escape_everything() -> None:
    evil = "<img src=x onerror=alert(1)>"
    index = _index(
        [
            _section(
                "notes#intro",
                f"Notes {evil}",
                "",
                "Intro <script>alert(2)</script>",
                "/notes#intro",
            ),
            _section(
                "notes#tomás",
                "Notes",
                f"Heading {evil}",
                "Line one.\nLine two.",
                "/notes#tom%C3%A1s",
            ),
            _section(
                "_facts#profile", "Noor Haddad (profile)", "Profile", "Facts.", "/_facts#profile"
            ),
            _section("ext#a", "Elsewhere", "", "Hosted elsewhere.", "https://example.org/ext#a"),
            _section(
                "_facts#location", "Noor Haddad (profile)", "Location", "Lisbon.", "/#location"
            ),
        ]
    )
    page = site_page(index, "/notes")
    assert page is not None
    assert 'id="intro"' in page and 'id="tomás"' in page
    assert "<script>alert" not in page and "<img" not in page
    assert "&lt;script&gt;" in page and "&lt;img src=x" in page
    assert "<p>Line one.</p><p>Line two.</p>" in page
    assert site_page(index, "/ext") is None and site_page(index, "/missing") is None
    home = home_page(index, "http://127.0.0.1:1")
    assert "Ask Noor Haddad&#x27;s website" in home and "<img" not in home
    assert 'src="/widget.js"' in home and "Which city and country" in home
    assert '<section id="location" class="cited"><h3>Location</h3><p>Lisbon.</p>' in home
