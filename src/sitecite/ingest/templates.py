"""Generator syntax taken out of a page's source before it is parsed, so none of it is indexed
as words: Liquid and Nunjucks tags (`{% ... %}`, `{% comment %}` blocks, `{# ... #}` comments;
a shortcode keeps the captions it is given, `{% image "cat.jpg", "A cat asleep" %}` -> "A cat
asleep"; `{% highlight js %}` blocks are code), Go-template and
Vue/Liquid expressions (`{{ ... }}`), Hugo shortcodes (`{{< figure title="..." >}}` keeps
its caption, paired ones keep what they wrap), kramdown attribute lists (`{: .class }`,
`{:toc}`), markdown-it and Pandoc attribute lists (`{.class}`; a heading's `{#id}` is kept
for its anchor), table-of-contents markers (`[[toc]]`, `[TOC]`), GitHub alert markers
(`> [!IMPORTANT]`) and markdown-it magic links (`{Vite|https://vitejs.dev}` -> "Vite",
`{@antfu}` -> "antfu", `{Nuxt}` -> "Nuxt").

Code is left as it is, except that `{% raw %}` and `{% endraw %}` go everywhere, code
included, as the template engine takes them out before Markdown is read: fenced blocks and
inline code spans are otherwise copied untouched, and every removed span keeps its newlines,
so line numbers still point into the original file. A Pandoc or markdown-it-attrs bracketed
span keeps its text (`[Ken]{.smallcaps}` -> "Ken").
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
_TAG = re.compile(r"\{%-?\s*(\w*)(.*?)-?%\}", re.S)
_RAW_MARKER = re.compile(r"\{%-?\s*(?:end)?raw\s*-?%\}")
_NUNJUCKS_COMMENT = re.compile(r"\{#.*?#\}", re.S)
_HIGHLIGHT = re.compile(
    r"^([ \t]*)\{%-?\s*highlight\s+[\"']?([\w+#-]*)[\"']?[^%]*?-?%\}[ \t]*\n"
    r"(.*?)\n[ \t]*\{%-?\s*endhighlight\s*-?%\}",
    re.S | re.M,
)
_QUOTED = re.compile(r"""(?:([\w-]+)\s*[=:]\s*)?(?:"([^"]*)"|'([^']*)')""")
_SPAN = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\{\s*(?:[.#][\w-]+|[\w-]+=)[^{}\n]*\}")
# Liquid and Nunjucks tags that are the template's logic, never what the page says.
CONTROL_TAGS = frozenset(
    "if elif elsif else endif unless endunless for endfor set endset assign capture endcapture "
    "include include_relative render import from extends block endblock macro endmacro call "
    "endcall filter endfilter with endwith case when endcase cycle increment decrement layout "
    "liquid comment endcomment tablerow endtablerow break continue paginate endpaginate "
    "seo feed_meta link post_url asset_path".split()
)
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


def _liquid_tag(match: re.Match[str]) -> str:
    """A Liquid or Nunjucks tag: the captions a shortcode is given (named `caption=`, `alt:`,
    or quoted prose after its first argument), nothing for the template's own logic."""
    name, args = match.group(1).lower(), match.group(2)
    if not name or name in CONTROL_TAGS or name.startswith("end"):
        return ""
    words = []
    for number, found in enumerate(_QUOTED.finditer(args)):
        key, value = (
            found.group(1),
            found.group(2) if found.group(2) is not None else found.group(3),
        )
        named = key is not None and key.lower() in CAPTION_PROPS
        if (named or (key is None and number > 0)) and _is_caption(value):
            words.append(value.strip())
    return f" {' — '.join(dict.fromkeys(words))} " if words else ""


def _is_caption(value: str) -> bool:
    """Words a reader sees: letters and a space; not a path, an address or a class list."""
    value = value.strip()
    if " " not in value or not any(c.isalpha() for c in value):
        return False
    if value.startswith(("/", "./", "../", "http", "#", "{", ".")):
        return False
    return value[0].isupper() or not re.search(r"[-:_/=]", value)


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
    if markdown and not mdx:
        text = _HIGHLIGHT.sub(lambda m: f"{m.group(1)}```{m.group(2)}\n{m.group(3)}\n```", text)
    for line in text.split("\n"):
        opened = _FENCE.match(line) if markdown else None
        if fence:
            out.append(line if mdx else _RAW_MARKER.sub("", line))
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

    def hold(match: re.Match[str], group: int = 0) -> str:
        code = match.group(group)
        codes.append(code if mdx else _RAW_MARKER.sub("", code))
        return f"\x00{len(codes) - 1}\x00"

    if markdown:
        text = _INLINE_CODE.sub(hold, text)
    if mdx:
        text = _ALERT.sub(lambda m: m.group(1), _TOC.sub("", text))
        return re.sub("\x00(\\d+)\x00", lambda m: codes[int(m.group(1))], text)
    text = _sub(_LIQUID_COMMENT, text, lambda m: "")
    text = _LIQUID_RAW.sub(lambda m: hold(m, 1), text)  # shown as written
    text = _sub(_NUNJUCKS_COMMENT, text, lambda m: "")
    text = _sub(_GO_COMMENT, text, lambda m: "")
    text = _sub(_SHORTCODE, text, _shortcode)
    text = _sub(_TAG, text, _liquid_tag)
    text = _sub(_EXPRESSION, text, lambda m: "")
    if markdown:
        text = _sub(_KRAMDOWN_BLOCK, text, lambda m: "")
        text = _sub(_KRAMDOWN, text, lambda m: "")
        text = _SPAN.sub(lambda m: m.group(1), text)
        text = _sub(_ATTRS, text, _attrs)
        text = _TOC.sub("", text)
        text = _ALERT.sub(lambda m: m.group(1), text)
        text = _MAGIC.sub(_magic, text)
    return re.sub("\x00(\\d+)\x00", lambda m: codes[int(m.group(1))], text)


def has_templates(text: str) -> bool:
    """Whether the text holds Liquid tags or template expressions (to render or strip)."""
    return "{%" in text or "{{" in text
