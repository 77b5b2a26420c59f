"""Small HTML helpers for the lab page: elements, numbers, safe links, and the page's CSS."""

from __future__ import annotations

from html import escape
from typing import Any

LAB_CSS = """
.lab{--fg:#111827;--muted:#6b7280;--line:#e5e7eb;--ok:#15803d;--bad:#b91c1c;--warn:#a16207;
--bg:#fff;--card:#f9fafb;--link:#1d4ed8;--note:#fef9c3;--quote:#c7d2fe;
font-size:15px;line-height:1.5;color:var(--fg)}
@media(prefers-color-scheme:dark){.lab{--fg:#e6edf3;--muted:#9da7b3;--line:#30363d;--ok:#3fb950;
--bad:#ff7b72;--warn:#e3b341;--bg:#0d1117;--card:#161b22;--link:#58a6ff;--note:#2b2111;
--quote:#3b4a7a}.lab svg{background:#f9fafb;border-radius:6px}}
.lab *{box-sizing:border-box}
.lab h1{font-size:26px;margin:0 0 4px}
.lab h2{font-size:19px;margin:36px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
.lab h3{font-size:15px;margin:14px 0 6px}.lab a{color:var(--link)}
.lab .meta{color:var(--muted);font-size:13px}.lab .meta code{font-size:12px}
.lab nav.sections{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:14px}
.lab .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:10px}
.lab .card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.lab .card .name{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.lab .card .value{font-size:24px;font-weight:650}.lab .card .ci{font-size:12px;color:var(--muted)}
.lab table{border-collapse:collapse;width:100%;font-size:14px}
.lab th,.lab td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);
vertical-align:top;overflow-wrap:break-word}
.lab th{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
.lab td.num,.lab th.num{text-align:right;font-variant-numeric:tabular-nums}
.lab .pass{color:var(--ok);font-weight:600}.lab .fail{color:var(--bad);font-weight:600}
.lab .warn{color:var(--warn)}.lab .pointed{color:var(--link);font-weight:600}
.lab details.q{border:1px solid var(--line);border-radius:8px;margin:8px 0;padding:0 12px}
.lab details.q[open]{padding-bottom:10px}.lab details.q>summary{cursor:pointer;padding:8px 0}
.lab details.q.failed{border-left:4px solid var(--bad)}
.lab details.q.passed{border-left:4px solid var(--ok)}
.lab .answer{background:var(--card);border-radius:6px;padding:2px 12px;margin:6px 0;
overflow-wrap:anywhere}
.lab .answer p,.lab .answer ol,.lab .answer ul{margin:6px 0}
.lab .answer pre{white-space:pre-wrap;margin:6px 0}
.lab .evidence{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:16px;
align-items:start}
.lab .evidence ol{margin:6px 0;padding-left:24px}.lab .evidence li{margin:0 0 8px}
.lab blockquote{margin:4px 0 0;padding:2px 0 2px 10px;border-left:3px solid var(--quote);
color:var(--muted);font-size:14px}
.lab .tag{display:inline-block;font-size:11px;border:1px solid var(--line);border-radius:10px;
padding:0 7px;margin-left:6px;color:var(--muted)}
.lab .note{background:var(--note);border-radius:6px;padding:6px 10px;margin:6px 0;color:var(--fg)}
.lab .grid2{display:grid;grid-template-columns:1fr 1fr;gap:16px}
@media(max-width:800px){.lab .grid2,.lab .evidence{display:block}
.lab table{display:block;overflow-x:auto}}
.lab svg{max-width:100%;height:auto}
.lab footer{margin:40px 0 10px;color:var(--muted);font-size:13px}
.lab pre{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px;
overflow-x:auto}
"""
# The standalone file (`sitecite eval --report`) adds the page around the lab.
PAGE_CSS = (
    LAB_CSS
    + """
:root{color-scheme:light dark}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#fff}
@media(prefers-color-scheme:dark){body{background:#0d1117}}
main{max-width:1120px;margin:0 auto;padding:24px}
"""
)


def standalone(title: str, body: str) -> str:
    """A self-contained page (inline CSS, no scripts) holding `body` in the lab's styles."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(title)}</title><style>{PAGE_CSS}</style></head>"
        f'<body><main class="lab">{body}</main></body></html>\n'
    )


def el(name: str, content: str = "", **attributes: Any) -> str:
    """An element with escaped attribute values; `class_` becomes `class`, `aria_label`
    `aria-label`. Content is markup."""
    names = {k: k.rstrip("_").replace("_", "-") for k in attributes}
    attrs = "".join(
        f" {names[k]}" if v is True else f' {names[k]}="{escape(str(v), quote=True)}"'
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
