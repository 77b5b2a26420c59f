"""Small HTML helpers for the lab page: elements, numbers, safe links, and the page's CSS."""

from __future__ import annotations

from html import escape
from typing import Any

CSS = """
:root{--fg:#111827;--muted:#6b7280;--line:#e5e7eb;--ok:#15803d;--bad:#b91c1c;--warn:#a16207;
--bg:#fff;--card:#f9fafb;--link:#1d4ed8}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
background:var(--bg)}
main{max-width:1120px;margin:0 auto;padding:24px}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:19px;margin:36px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:14px 0 6px}a{color:var(--link)}
.meta{color:var(--muted);font-size:13px}.meta code{font-size:12px}
nav a{margin-right:14px;font-size:14px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:10px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.card .name{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.card .value{font-size:24px;font-weight:650}.card .ci{font-size:12px;color:var(--muted)}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:var(--ok);font-weight:600}.fail{color:var(--bad);font-weight:600}.warn{color:var(--warn)}
details.q{border:1px solid var(--line);border-radius:8px;margin:8px 0;padding:0 12px}
details.q[open]{padding-bottom:10px}details.q>summary{cursor:pointer;padding:8px 0}
details.q.failed{border-left:4px solid var(--bad)}details.q.passed{border-left:4px solid var(--ok)}
.answer{white-space:pre-wrap;background:var(--card);border-radius:6px;padding:8px 10px;margin:6px 0}
.tag{display:inline-block;font-size:11px;border:1px solid var(--line);border-radius:10px;
padding:0 7px;margin-left:6px;color:var(--muted)}
.note{background:#fef9c3;border-radius:6px;padding:6px 10px;margin:6px 0}
.grid2{display:grid;grid-template-columns:1fr 1fr;gap:16px}
@media(max-width:800px){.grid2{display:block}}
svg{max-width:100%;height:auto}footer{margin:40px 0 10px;color:var(--muted);font-size:13px}
"""


def el(name: str, content: str = "", **attributes: Any) -> str:
    """An element with escaped attribute values; `class_` becomes `class`. Content is markup."""
    attrs = "".join(
        f" {k.rstrip('_')}" if v is True else f' {k.rstrip("_")}="{escape(str(v), quote=True)}"'
        for k, v in attributes.items()
        if v is not None and v is not False
    )
    return f"<{name}{attrs}>{content}</{name}>"


def row(*cells: str, numeric: tuple[int, ...] = ()) -> str:
    """A table row of already-escaped cells; positions in `numeric` are right-aligned."""
    return el(
        "tr",
        "".join(el("td", c, class_="num" if i in numeric else None) for i, c in enumerate(cells)),
    )


def header(*names: str, numeric: tuple[int, ...] = ()) -> str:
    return el(
        "tr",
        "".join(
            el("th", escape(n), class_="num" if i in numeric else None) for i, n in enumerate(names)
        ),
    )


def pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f}%"


def num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def interval_text(block: dict[str, Any], percent: bool = True) -> str:
    low, high = block.get("low"), block.get("high")
    if low is None or high is None:
        return ""
    return f"{pct(low)}–{pct(high)}" if percent else f"{num(low)}–{num(high)}"


def href(url: str) -> str:
    """Only web and relative links; anything else (javascript:, data:) becomes inert."""
    url = url or ""
    first = url.split("/", 1)[0]
    scheme = first.split(":", 1)[0].lower() if ":" in first else ""
    return url if scheme in ("", "http", "https") else "#"
