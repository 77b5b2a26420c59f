"""Source ids and URLs exactly as DESIGN.md fixes them."""

from __future__ import annotations

import pytest

from sitecite.ingest.ids import Slugger, page_id, page_url, section_url, slugify


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("notes/dark-mode/index.mdx", "notes/dark-mode"),
        ("app/uses/page.mdx", "app/uses"),
        ("data/blog/post.mdx", "data/blog/post"),
        ("about.md", "about"),
        ("index.mdx", "index"),
        ("work\\checkout.mdx", "work/checkout"),
        ("speaking.html", "speaking"),
    ],
)
def test_page_id(path: str, expected: str) -> None:
    assert page_id(path) == expected


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("What I'd do differently", "what-id-do-differently"),
        ("Hello, World!", "hello-world"),
        ("snake_case and kebab-case", "snake_case-and-kebab-case"),
        ("🚘\u00a0\u00a0Daily Drivers", "daily-drivers"),
        ("⚡\u00a0 Speed", "-speed"),
        ("C++ & Rust (2024)", "c--rust-2024"),
        ("Ünïcödé Straße", "ünïcödé-straße"),
    ],
)
def test_slugify_matches_github(heading: str, expected: str) -> None:
    assert slugify(heading) == expected


def test_repeated_headings_get_numbered_slugs() -> None:
    slugger = Slugger()
    assert [slugger.slug(h) for h in ["Results", "Results", "Results-1", "Results"]] == [
        "results",
        "results-1",
        "results-1-1",
        "results-2",
    ]


def test_urls_use_base_url_route_and_anchor() -> None:
    address = page_url("https://noor.example/", "{page_id}", "work/checkout")
    assert address == "https://noor.example/work/checkout"
    assert section_url(address, "results") == "https://noor.example/work/checkout#results"
    assert page_url("", "/blog/{page_id}", "post") == "/blog/post"
