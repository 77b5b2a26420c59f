"""Generator syntax taken out of a page's source before it is parsed, so none of it is indexed
as words: Liquid and Nunjucks tags (`{% ... %}`, `{% comment %}` blocks), Go-template and
Vue/Liquid expressions (`{{ ... }}`), Hugo shortcodes (`{{< figure title="..." >}}` keeps
its caption, paired ones keep what they wrap), kramdown attribute lists (`{: .class }`,
`{:toc}`), markdown-it and Pandoc attribute lists (`{.class}`; a heading's `{#id}` is kept
for its anchor), table-of-contents markers (`[[toc]]`, `[TOC]`), GitHub alert markers
(`> [!IMPORTANT]`) and markdown-it magic links (`{Vite|https://vitejs.dev}` -> "Vite",
`{@antfu}` -> "antfu", `{Nuxt}` -> "Nuxt").

Code is left as it is: fenced blocks and inline code spans are copied untouched, and every
removed span keeps its newlines, so line numbers still point into the original file.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)[^`\n](?:.*?[^`])?\1(?!`)")
_LIQUID_COMMENT = re.compile(r"\{%-?\s*comment\s*-?%\}.*?\{%-?\s*endcomment\s*-?%\}", re.S)
_LIQUID_RAW = re.compile(r"\{%-?\s*raw\s*-?%\}(.*?)\{%-?\s*endraw\s*-?%\}", re.S)
_GO_COMMENT = re.compile(r"\{\{-?\s*/\*.*?\*/\s*-?\}\}", re.S)
_SHORTCODE = re.compile(r"\{\{([<%])\s*(/?)\s*([\w./-]+)(.*?)\s*[>%]\}\}", re.S)
_TAG = re.compile(r"\{%-?.*?-?%\}", re.S)
_EXPRESSION = re.compile(r"\{\{(?![<%]).*?\}\}", re.S)
_KRAMDOWN_BLOCK = re.compile(r"\{::(comment|nomarkdown)\}.*?\{:/(?:\1)?\}", re.S)
_KRAMDOWN = re.compile(r"\{:[^}\n]*\}|\{::[^}\n]*/\}")
_ATTR = r"(?:[.#][\w-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s}]+))"
_ATTRS = re.compile(rf"\{{\s*({_ATTR}(?:\s+{_ATTR})*)\s*\}}")
_TOC = re.compile(
    r"^[ \t]*(?:\[\[_?toc_?\]\]|\[toc\]|\$\{toc\}|<!--\s*toc\s*-->)[ \t]*$", re.I | re.M
)
_ALERT = re.compile(r"^([ \t]*(?:>[ \t]*)+)\[!(\w+)\][-+]?[ \t]*", re.M)
_MAGIC = re.compile(r"\{([^{}\n]*?)\}(?=[^\[\](){}]|$)")
_NAME = re.compile(r"[A-Za-z][\w .+#&'’-]{0,48}")
_PROP = re.compile(r"""([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))""")
CAPTION_PROPS = ("title", "caption", "alt", "text", "summary", "name")
# Shortcodes that embed media from elsewhere: nothing of theirs is text on the page.
EMBEDS = {
    "tweet",
    "twitter",
    "x",
    "youtube",
    "vimeo",
    "gist",
    "instagram",
    "param",
    "ref",
    "relref",
    "toc",
    "highlight",
    "raw",
}


def _keep_lines(text: str) -> str:
    return "\n" * text.count("\n")


def _sub(pattern: re.Pattern[str], text: str, replace: Callable[[re.Match[str]], str]) -> str:
    """Substitute, keeping each replaced span's newlines after its replacement."""

    def keep(match: re.Match[str]) -> str:
        return replace(match) + _keep_lines(match.group(0))

    return pattern.sub(keep, text)


def _shortcode(match: re.Match[str]) -> str:
    closing, name, args = match.group(2), match.group(3).lower(), match.group(4)
    if closing or name in EMBEDS:
        return ""
    props = {
        m.group(1).lower(): next(g for g in m.groups()[1:] if g is not None)
        for m in _PROP.finditer(args)
    }
    words = [props[k] for k in CAPTION_PROPS if props.get(k, "").strip()]
    return f" {' — '.join(dict.fromkeys(words))} " if words else ""


def _attrs(match: re.Match[str]) -> str:
    """An attribute list keeps only a heading id, as `{#id}` (read by ids.heading_anchors)."""
    found = re.search(r"(?:^|\s)#([\w-]+)", match.group(1))
    return f"{{#{found.group(1)}}}" if found else ""


def _magic(match: re.Match[str]) -> str:
    inner = match.group(1).strip()
    text, bar, url = inner.partition("|")
    if bar and re.match(r"https?://", url.strip()):
        return text.strip() or re.sub(r"^https?://", "", url.strip())
    if inner.startswith("@") and re.fullmatch(r"@[\w.-]+", inner):
        return inner[1:]
    if not bar and _NAME.fullmatch(inner) and not inner.startswith("#"):
        return inner
    return match.group(0)


def strip_templates(text: str, markdown: bool = True, mdx: bool = False) -> str:
    """The text without generator syntax; fenced code and inline code untouched. In MDX,
    where braces are JavaScript, only table-of-contents and alert markers go."""
    out: list[str] = []
    prose: list[str] = []
    fence = ""
    for line in text.split("\n"):
        opened = _FENCE.match(line) if markdown else None
        if fence:
            out.append(line)
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            if prose:
                out.append(_clean("\n".join(prose), markdown, mdx))
                prose = []
            fence = opened.group(1)
            out.append(line)
            continue
        prose.append(line)
    if prose:
        out.append(_clean("\n".join(prose), markdown, mdx))
    return "\n".join(out)


def _clean(text: str, markdown: bool, mdx: bool = False) -> str:
    """Generator syntax out of prose, inline code spans kept as they are."""
    codes: list[str] = []

    def hold(match: re.Match[str]) -> str:
        codes.append(match.group(0))
        return f"\x00{len(codes) - 1}\x00"

    if markdown:
        text = _INLINE_CODE.sub(hold, text)
    if mdx:
        text = _ALERT.sub(lambda m: m.group(1), _TOC.sub("", text))
        return re.sub("\x00(\\d+)\x00", lambda m: codes[int(m.group(1))], text)
    text = _sub(_LIQUID_COMMENT, text, lambda m: "")
    text = _LIQUID_RAW.sub(lambda m: m.group(1), text)
    text = _sub(_GO_COMMENT, text, lambda m: "")
    text = _sub(_SHORTCODE, text, _shortcode)
    text = _sub(_TAG, text, lambda m: "")
    text = _sub(_EXPRESSION, text, lambda m: "")
    if markdown:
        text = _sub(_KRAMDOWN_BLOCK, text, lambda m: "")
        text = _sub(_KRAMDOWN, text, lambda m: "")
        text = _sub(_ATTRS, text, _attrs)
        text = _TOC.sub("", text)
        text = _ALERT.sub(lambda m: m.group(1), text)
        text = _MAGIC.sub(_magic, text)
    return re.sub("\x00(\\d+)\x00", lambda m: codes[int(m.group(1))], text)


def has_templates(text: str) -> bool:
    """Whether the text holds Liquid tags or template expressions (to render or strip)."""
    return "{%" in text or "{{" in text
