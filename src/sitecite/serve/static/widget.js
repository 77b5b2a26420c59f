/* sitecite widget: press Cmd-K (Ctrl-K elsewhere) and ask a question about this site.
 *
 * Embed with one tag:
 *   <script src="https://HOST/widget.js" data-endpoint="https://HOST/api/ask" defer></script>
 * Options, as data- attributes on that tag (or attributes of a <sitecite-palette> element):
 *   data-endpoint     the POST /api/ask URL (default: /api/ask beside widget.js)
 *   data-theme        "light", "dark" or "auto" (default: follow the visitor's system)
 *   data-button       "false" hides the floating "Ask" button (the shortcut still works)
 *   data-placeholder  the input's placeholder text
 * Any element with data-sitecite-open opens the palette; data-sitecite-ask="..." asks that.
 *
 * An answer's light Markdown (emphasis, lists, code) is shown formatted, read as sitecite.markup
 * reads it. A reply is an answer, a pointed reply (no direct answer: the closest sections, each
 * with its line) or a refusal; a citation's quote shows on hover and keyboard focus.
 *
 * The empty palette offers starter questions (GET /api/starters beside the endpoint). Every
 * answer can be rated thumbs up or down, with a reason (POST /api/feedback with the answer's
 * id). A question asked after an answer is sent with the last turns, so a follow-up ("and
 * what did she use for that?") is read with them; "New conversation" forgets them.
 *
 * No dependencies. Everything that comes from the server is inserted with textContent and
 * createElement, never as HTML, and only http(s) citation URLs become links.
 */
(() => {
  "use strict";

  const TAG = "sitecite-palette";
  if (window.customElements.get(TAG)) return;

  const script = document.currentScript;
  const scriptOptions = script ? script.dataset : {};
  const scriptBase = script && script.src ? script.src : document.baseURI;
  const isMac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
  const TIMEOUT_MS = 30000;
  const HISTORY_TURNS = 3;
  const REASONS = [
    ["wrong", "Wrong"], ["not_what_i_asked", "Not what I asked"], ["outdated", "Outdated"], ["other", "Other"],
  ];

  const CSS = `
:host { all: initial; --sc-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --sc-bg: #ffffff; --sc-fg: #1b1f24; --sc-muted: #57606a; --sc-border: #d0d7de;
  --sc-accent: #0b5cad; --sc-accent-fg: #ffffff; --sc-soft: #f3f6f9; --sc-refuse: #9a6700;
  --sc-refuse-bg: #fff8e5; --sc-point: #8c959f; --sc-error: #b42318; --sc-shadow: 0 24px 64px rgba(15, 23, 42, .28);
  --sc-backdrop: rgba(15, 23, 42, .45); color-scheme: light; font-family: var(--sc-font); }
:host([theme="dark"]) { --sc-bg: #161b22; --sc-fg: #e6edf3; --sc-muted: #9da7b3; --sc-border: #30363d;
  --sc-accent: #58a6ff; --sc-accent-fg: #0d1117; --sc-soft: #0d1117; --sc-refuse: #e3b341;
  --sc-refuse-bg: #2b2111; --sc-point: #6e7681; --sc-error: #ff7b72; --sc-shadow: 0 24px 64px rgba(0, 0, 0, .6);
  --sc-backdrop: rgba(1, 4, 9, .7); color-scheme: dark; }
@media (prefers-color-scheme: dark) {
  :host(:not([theme="light"])) { --sc-bg: #161b22; --sc-fg: #e6edf3; --sc-muted: #9da7b3;
    --sc-border: #30363d; --sc-accent: #58a6ff; --sc-accent-fg: #0d1117; --sc-soft: #0d1117;
    --sc-refuse: #e3b341; --sc-refuse-bg: #2b2111; --sc-point: #6e7681; --sc-error: #ff7b72;
    --sc-shadow: 0 24px 64px rgba(0, 0, 0, .6); --sc-backdrop: rgba(1, 4, 9, .7); color-scheme: dark; }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
.launcher { position: fixed; right: 20px; bottom: 20px; z-index: 2147483000; display: inline-flex;
  gap: 8px; align-items: center; padding: 10px 14px; border-radius: 999px; border: 1px solid var(--sc-border);
  background: var(--sc-bg); color: var(--sc-fg); font: 500 14px/1 var(--sc-font); cursor: pointer;
  box-shadow: 0 6px 20px rgba(15, 23, 42, .18); }
kbd { font: 12px/1 ui-monospace, SFMono-Regular, Menlo, monospace; padding: 3px 5px; border-radius: 4px;
  border: 1px solid var(--sc-border); background: var(--sc-soft); color: var(--sc-muted); }
.backdrop { position: fixed; inset: 0; z-index: 2147483001; background: var(--sc-backdrop);
  display: flex; align-items: flex-start; justify-content: center; padding: 10vh 16px 16px; }
.dialog { position: relative; width: min(680px, 100%); max-height: 80vh; overflow: auto;
  background: var(--sc-bg); color: var(--sc-fg); border: 1px solid var(--sc-border); border-radius: 14px;
  box-shadow: var(--sc-shadow); font: 16px/1.55 var(--sc-font); }
.title { display: block; padding: 16px 52px 0 20px; font-weight: 600; font-size: 15px; color: var(--sc-muted); }
.row { display: flex; gap: 8px; padding: 10px 16px 16px; border-bottom: 1px solid var(--sc-border); }
input { flex: 1; min-width: 0; font: 18px/1.4 var(--sc-font); color: var(--sc-fg); background: var(--sc-soft);
  border: 1px solid var(--sc-border); border-radius: 10px; padding: 10px 12px; }
button { font: 600 15px/1 var(--sc-font); cursor: pointer; }
.send { padding: 0 18px; border-radius: 10px; border: 0; background: var(--sc-accent); color: var(--sc-accent-fg); }
.send:disabled { opacity: .6; cursor: progress; }
.close { position: absolute; top: 10px; right: 10px; width: 34px; height: 34px; border-radius: 8px;
  border: 1px solid transparent; background: transparent; color: var(--sc-muted); font-size: 22px; }
.close:hover { border-color: var(--sc-border); }
:focus-visible { outline: 3px solid var(--sc-accent); outline-offset: 2px; }
input:focus-visible { outline-offset: 0; }
.result { position: relative; padding: 16px 20px 4px; min-height: 24px; }
.status { margin: 0 0 12px; color: var(--sc-muted); display: flex; gap: 10px; align-items: center; }
.status:empty { display: none; }
.spinner { width: 16px; height: 16px; border-radius: 50%; border: 2px solid var(--sc-border);
  border-top-color: var(--sc-accent); animation: spin .8s linear infinite; flex: none; }
@keyframes spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .spinner { animation: none; } }
.state-label { margin: 0 0 6px; font-size: 13px; font-weight: 700; text-transform: uppercase; letter-spacing: .04em; }
.answer { margin: 0 0 14px; overflow-wrap: anywhere; }
.answer p { margin: 0 0 8px; }
.answer ol, .answer ul { margin: 0 0 8px; padding-left: 24px; }
.answer li { margin: 2px 0; }
.answer blockquote { margin: 0 0 8px; padding-left: 12px; border-left: 3px solid var(--sc-border); color: var(--sc-muted); }
.answer code { font: .9em ui-monospace, SFMono-Regular, Menlo, monospace; background: var(--sc-soft);
  border: 1px solid var(--sc-border); border-radius: 4px; padding: 0 3px; }
.answer pre { margin: 0 0 8px; padding: 8px 10px; background: var(--sc-soft); border-radius: 8px; overflow-x: auto; }
.answer pre code { border: 0; padding: 0; background: none; }
.answer > :last-child { margin-bottom: 0; }
.cite { font-size: .78em; vertical-align: super; line-height: 0; margin-left: 1px; color: var(--sc-accent);
  text-decoration: none; font-weight: 700; padding: 0 1px; }
a.cite:hover { text-decoration: underline; }
span.cite { color: var(--sc-muted); }
.sources-label { margin: 0 0 6px; font-size: 13px; font-weight: 700; color: var(--sc-muted);
  text-transform: uppercase; letter-spacing: .04em; }
.sources { margin: 0 0 12px; padding-left: 26px; font-size: 15px; }
.sources li { margin: 4px 0; overflow-wrap: anywhere; }
.sources a { color: var(--sc-accent); }
.sources .url { display: block; color: var(--sc-muted); font-size: 13px; }
.sources .line { display: block; margin: 2px 0; color: var(--sc-fg); font-size: 14px; }
.tip { position: absolute; z-index: 3; width: max-content; max-width: min(420px, calc(100% - 16px));
  padding: 10px 12px; border-radius: 8px; border: 1px solid var(--sc-border); background: var(--sc-bg);
  color: var(--sc-fg); box-shadow: 0 8px 24px rgba(15, 23, 42, .22); font-size: 14px; line-height: 1.45; }
.tip-where { display: block; color: var(--sc-muted); font-size: 12px; font-weight: 700; margin-bottom: 4px; }
.tip-quote { display: block; margin: 2px 0 0; }
.tip-none { display: block; color: var(--sc-muted); }
.score { margin: 0 0 12px; font-size: 13px; color: var(--sc-muted); }
.panel[data-state="answer"] .state-label { color: var(--sc-accent); }
.panel[data-state="refused"] { border-left: 4px solid var(--sc-refuse); background: var(--sc-refuse-bg);
  padding: 12px 14px; border-radius: 8px; margin-bottom: 12px; }
.panel[data-state="refused"] .state-label { color: var(--sc-refuse); }
.panel[data-state="pointed"] { border-left: 4px solid var(--sc-point); background: var(--sc-soft);
  padding: 12px 14px; border-radius: 8px; margin-bottom: 12px; }
.panel[data-state="pointed"] .state-label { color: var(--sc-muted); }
.panel[data-state="pointed"] .answer { color: var(--sc-muted); margin-bottom: 12px; }
.panel[data-state="pointed"] .sources { padding-left: 22px; }
.panel[data-state="pointed"] .sources li { margin: 0 0 10px; }
.panel[data-state="error"] .state-label { color: var(--sc-error); }
.panel[data-state="refused"] .answer, .panel[data-state="error"] .answer { margin: 0 0 8px; }
.footer { display: flex; flex-wrap: wrap; gap: 6px 14px; padding: 10px 20px 14px; font-size: 13px;
  color: var(--sc-muted); border-top: 1px solid var(--sc-border); }
.starters { margin: 0 0 12px; }
.starters-label, .transcript-label { margin: 0 0 6px; font-size: 13px; font-weight: 700; color: var(--sc-muted);
  text-transform: uppercase; letter-spacing: .04em; }
.starters ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 8px; }
.starter { font: 500 14px/1.3 var(--sc-font); text-align: left; padding: 8px 12px; border-radius: 10px;
  border: 1px solid var(--sc-border); background: var(--sc-soft); color: var(--sc-fg); }
.starter:hover { border-color: var(--sc-accent); }
.transcript { list-style: none; margin: 0 0 12px; padding: 0; font-size: 14px; color: var(--sc-muted); }
.transcript li { border-left: 3px solid var(--sc-border); padding: 2px 0 2px 10px; margin: 0 0 8px; }
.transcript .q { display: block; color: var(--sc-fg); font-weight: 600; }
.transcript .a { display: block; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.feedback { margin: 0 0 12px; font-size: 14px; color: var(--sc-muted); }
.feedback .row2 { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.thumb, .new-chat, .send-feedback { font: 500 14px/1 var(--sc-font); padding: 7px 10px; border-radius: 8px;
  border: 1px solid var(--sc-border); background: var(--sc-bg); color: var(--sc-fg); }
.thumb[aria-pressed="true"] { border-color: var(--sc-accent); background: var(--sc-soft); color: var(--sc-accent); }
fieldset.reasons { margin: 10px 0 0; padding: 8px 12px 10px; border: 1px solid var(--sc-border); border-radius: 8px; }
fieldset.reasons legend { padding: 0 4px; color: var(--sc-fg); font-weight: 600; }
.reasons label { display: inline-flex; gap: 6px; align-items: center; margin: 4px 14px 4px 0; color: var(--sc-fg); }
.reasons .reason-text { display: block; width: 100%; margin: 6px 0 8px; font-size: 14px; padding: 7px 9px; }
.feedback-status:empty { display: none; }
.feedback-status { margin: 8px 0 0; }
.conversation-bar { display: flex; justify-content: space-between; align-items: center; gap: 8px; margin: 0 0 10px; }
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
  clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0; }
`;

  // Static markup only: nothing from the server or the page ever goes through innerHTML.
  const TEMPLATE = `
<button class="launcher" part="launcher" type="button" aria-haspopup="dialog">
  <span>Ask this site</span><kbd class="shortcut"></kbd>
</button>
<div class="backdrop" part="backdrop" hidden>
  <div class="dialog" part="dialog" role="dialog" aria-modal="true" aria-labelledby="sc-title"
       aria-describedby="sc-help">
    <form class="ask" role="search" novalidate>
      <label class="title" id="sc-title" for="sc-question">Ask a question about this site</label>
      <div class="row">
        <input id="sc-question" name="question" type="text" autocomplete="off" spellcheck="false"
               enterkeyhint="search">
        <button class="send" type="submit">Ask</button>
      </div>
    </form>
    <button class="close" type="button" aria-label="Close">&times;</button>
    <div class="result" aria-live="polite" aria-busy="false">
      <div class="starters" hidden>
        <p class="starters-label" id="sc-starters">Try asking</p>
        <ul aria-labelledby="sc-starters"></ul>
      </div>
      <div class="conversation" hidden>
        <div class="conversation-bar"><p class="transcript-label">Earlier in this conversation</p>
          <button class="new-chat" type="button">New conversation</button></div>
        <ol class="transcript"></ol>
      </div>
      <p class="status"></p>
      <div class="panel" data-state="idle" hidden>
        <p class="state-label"></p>
        <div class="answer"></div>
        <p class="sources-label" hidden>Sources</p>
        <ol class="sources" hidden></ol>
        <p class="score" hidden></p>
      </div>
      <div class="tips"></div>
      <form class="feedback" hidden novalidate>
        <div class="row2" role="group" aria-labelledby="sc-fb-label">
          <span id="sc-fb-label">Was this answer helpful?</span>
          <button class="thumb" type="button" data-rating="up" aria-pressed="false">
            <span aria-hidden="true">\u2713</span> Helpful</button>
          <button class="thumb" type="button" data-rating="down" aria-pressed="false">
            <span aria-hidden="true">\u2717</span> Not helpful</button>
        </div>
        <fieldset class="reasons" hidden>
          <legend>What was wrong with it?</legend>
          <div class="reason-options"></div>
          <label class="sr-only" for="sc-reason-text">More detail (optional)</label>
          <input class="reason-text" id="sc-reason-text" type="text" maxlength="500" autocomplete="off"
                 placeholder="More detail (optional)">
          <button class="send-feedback" type="submit">Send feedback</button>
        </fieldset>
        <p class="feedback-status" role="status"></p>
      </form>
    </div>
    <p class="footer" id="sc-help"><span><kbd>Enter</kbd> ask</span><span><kbd>Tab</kbd> move</span>
      <span><kbd>Esc</kbd> close</span><span>Answers quote this site only, with sources.</span></p>
  </div>
</div>`;

  function safeUrl(url) {
    try {
      const parsed = new URL(String(url), document.baseURI);
      return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
    } catch (_) {
      return null;
    }
  }

  function deepActiveElement() {
    let active = document.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) {
      active = active.shadowRoot.activeElement;
    }
    return active;
  }

  function text(tag, className, content) {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (content !== undefined) element.textContent = String(content);
    return element;
  }

  // The answer text's light Markdown, read exactly as sitecite.markup reads it (markup.py says
  // the rules): blocks line by line, then code, emphasis, links, escapes and entities inline.
  // It builds nodes and text, never HTML.
  const ESCAPABLE = "\\`*_{}[]()#+-.!>|~";
  const ENTITY = /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/y;
  const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
  const ORDERED = /^\s{0,3}([0-9]{1,9})[.)]\s+(.*)$/;
  const BULLET = /^\s{0,3}[-*+\u2022]\s+(.*)$/;
  const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
  const QUOTE = /^\s{0,3}>\s?(.*)$/;
  const LINK = /\[([^[\]\n]+)\]\(\s*([^\s()]+)\s*\)/y;
  const ALNUM = /[\p{L}\p{N}]/u;
  const SPACE = /\s/;
  let entityBox = null;

  function decodeEntity(entity) {
    // Only a matched "&name;" or "&#n;" ever gets here: a <textarea>'s content is text (RCDATA),
    // so the browser decodes the reference and creates no element.
    entityBox = entityBox || document.createElement("textarea");
    entityBox.innerHTML = entity;
    return entityBox.value;
  }

  function runLength(source, at, char) {
    let end = at;
    while (end < source.length && source[end] === char) end += 1;
    return end - at;
  }

  function opensRun(source, at, run) {
    const before = at ? source[at - 1] : " ";
    const after = at + run < source.length ? source[at + run] : " ";
    return !SPACE.test(after) && !ALNUM.test(before);
  }

  // A closer belongs to the nearest opener before it, as in sitecite.markup._closing.
  function closingRun(source, at, run, char) {
    if (!opensRun(source, at, run)) return -1;
    let search = at + run;
    for (;;) {
      const close = source.indexOf(char.repeat(run), search);
      if (close < 0) return -1;
      const length = runLength(source, close, char);
      const end = close + length;
      if (length === run && !SPACE.test(source[close - 1]) && source[close - 1] !== "\\"
          && !(end < source.length && ALNUM.test(source[end]))) {
        return close;
      }
      if (length === run && opensRun(source, close, run)) return -1;
      search = end;
    }
  }

  function codeText(inner) {
    return inner.length > 2 && inner[0] === " " && inner[inner.length - 1] === " " && inner.trim()
      ? inner.slice(1, -1) : inner;
  }

  function inline(source) {
    const spans = [];
    let buffer = "";
    const flush = () => {
      if (buffer) spans.push({ kind: "text", text: buffer });
      buffer = "";
    };
    let i = 0;
    while (i < source.length) {
      const char = source[i];
      if (char === "\\" && i + 1 < source.length && ESCAPABLE.includes(source[i + 1])) {
        buffer += source[i + 1];
        i += 2;
        continue;
      }
      if (char === "`") {
        const run = runLength(source, i, "`");
        let close = source.indexOf("`".repeat(run), i + run);
        while (close >= 0 && runLength(source, close, "`") !== run) {
          close = source.indexOf("`".repeat(run), close + runLength(source, close, "`"));
        }
        if (close < 0) {
          buffer += "`".repeat(run);
          i += run;
          continue;
        }
        flush();
        spans.push({ kind: "code", text: codeText(source.slice(i + run, close)) });
        i = close + run;
        continue;
      }
      if (char === "&") {
        ENTITY.lastIndex = i;
        const entity = ENTITY.exec(source);
        if (entity) {
          buffer += decodeEntity(entity[0]);
          i += entity[0].length;
          continue;
        }
      }
      if (char === "[") {
        LINK.lastIndex = i;
        const link = LINK.exec(source);
        if (link) {
          flush();
          spans.push({ kind: "link", children: inline(link[1]), url: link[2] });
          i += link[0].length;
          continue;
        }
      }
      if (char === "*" || char === "_") {
        const run = runLength(source, i, char);
        const close = run <= 3 ? closingRun(source, i, run, char) : -1;
        if (close >= 0) {
          flush();
          const children = inline(source.slice(i + run, close));
          if (run === 1) spans.push({ kind: "em", children });
          else if (run === 2) spans.push({ kind: "strong", children });
          else spans.push({ kind: "strong", children: [{ kind: "em", children }] });
          i = close + run;
          continue;
        }
        buffer += char.repeat(run);
        i += run;
        continue;
      }
      buffer += char;
      i += 1;
    }
    flush();
    return spans;
  }

  function parseAnswer(source) {
    const lines = String(source).replace(/\r\n?/g, "\n").split("\n");
    const blocks = [];
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      i += 1;
      if (!line.trim()) continue;
      const fence = FENCE.exec(line);
      if (fence) {
        const body = [];
        while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
        i += 1;
        blocks.push({ kind: "code", code: body.join("\n") });
        continue;
      }
      const ordered = ORDERED.exec(line);
      const bullet = ordered ? null : BULLET.exec(line);
      if (ordered || bullet) {
        const kind = ordered ? "ol" : "ul";
        const item = inline(ordered ? ordered[2] : bullet[1]);
        const last = blocks[blocks.length - 1];
        if (last && last.kind === kind) last.items.push(item);
        else blocks.push({ kind, items: [item], start: ordered ? parseInt(ordered[1], 10) : 1 });
        continue;
      }
      const heading = HEADING.exec(line);
      const quote = heading ? null : QUOTE.exec(line);
      if (heading) blocks.push({ kind: "heading", spans: inline(heading[1]) });
      else if (quote) blocks.push({ kind: "quote", spans: inline(quote[1]) });
      else blocks.push({ kind: "p", spans: inline(line.trim()) });
    }
    return blocks;
  }

  function spansText(spans) {
    return spans.map((span) => {
      if (span.kind === "text" || span.kind === "code") return span.text;
      if (span.kind === "link") {
        const label = spansText(span.children);
        return label === span.url ? label : `${label} (${span.url})`;
      }
      return spansText(span.children);
    }).join("");
  }

  // The answer's visible words on one line, as sitecite.markup.plain gives them.
  function plainAnswer(source) {
    const lines = [];
    for (const block of parseAnswer(source)) {
      if (block.kind === "ol" || block.kind === "ul") {
        block.items.forEach((item, k) => {
          lines.push(`${block.kind === "ol" ? `${block.start + k}.` : "\u2022"} ${spansText(item)}`);
        });
      } else if (block.kind === "code") lines.push(block.code);
      else lines.push(spansText(block.spans));
    }
    return lines.join(" ").split(/\s+/).filter(Boolean).join(" ");
  }

  // What a pointed reply says before it names its sections (sitecite.markup.pointer_lead): the
  // sections are listed below it, each with its line and link.
  function pointerLead(source) {
    const first = /\[\d+\]/.exec(source);
    if (!first) return source;
    const ends = [...source.slice(0, first.index).matchAll(/[.!?]["'\u201d\u2019)]*\s/g)];
    if (!ends.length) return source;
    const last = ends[ends.length - 1];
    return source.slice(0, last.index + last[0].length).trim();
  }

  // A quoted line ready for quotation marks (sitecite.markup.quote_line): a sentence cut from a
  // longer quotation loses the quotation mark left without its pair.
  function quoteLine(quote) {
    let line = String(quote).split(/\s+/).filter(Boolean).join(" ");
    if ((line.match(/"/g) || []).length % 2) {
      if (line.startsWith('"')) line = line.slice(1);
      else if (line.endsWith('"')) line = line.slice(0, -1);
    }
    return line;
  }

  // `onText(text)` returns the nodes for a piece of plain text (e.g. citation markers linked).
  function appendSpans(parent, spans, onText) {
    for (const span of spans) {
      if (span.kind === "text") {
        for (const node of onText(span.text)) parent.append(node);
      } else if (span.kind === "code") {
        parent.append(text("code", "", span.text));
      } else if (span.kind === "link") {
        const href = safeUrl(span.url);
        const element = document.createElement(href ? "a" : "span");
        if (href) element.href = href;
        appendSpans(element, span.children, onText);
        parent.append(element);
      } else {
        const element = document.createElement(span.kind === "em" ? "em" : "strong");
        appendSpans(element, span.children, onText);
        parent.append(element);
      }
    }
  }

  function renderAnswer(parent, source, onText) {
    for (const block of parseAnswer(source)) {
      if (block.kind === "ol" || block.kind === "ul") {
        const list = document.createElement(block.kind);
        if (block.kind === "ol" && block.start !== 1) list.start = block.start;
        for (const item of block.items) {
          const entry = document.createElement("li");
          appendSpans(entry, item, onText);
          list.append(entry);
        }
        parent.append(list);
      } else if (block.kind === "code") {
        const pre = document.createElement("pre");
        pre.append(text("code", "", block.code));
        parent.append(pre);
      } else {
        const element = document.createElement(block.kind === "quote" ? "blockquote" : "p");
        const holder = block.kind === "heading" ? document.createElement("strong") : element;
        if (holder !== element) element.append(holder);
        appendSpans(holder, block.spans, onText);
        parent.append(element);
      }
    }
  }

  class SitecitePalette extends HTMLElement {
    constructor() {
      super();
      this.root = this.attachShadow({ mode: "open" });
      if (this.root.adoptedStyleSheets !== undefined && "replaceSync" in CSSStyleSheet.prototype) {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(CSS); // not subject to a host page's style-src CSP
        this.root.adoptedStyleSheets = [sheet];
      } else {
        this.root.append(text("style", "", CSS));
      }
      const template = document.createElement("template");
      template.innerHTML = TEMPLATE;
      this.root.append(template.content.cloneNode(true));
      const $ = (selector) => this.root.querySelector(selector);
      this.launcher = $(".launcher");
      this.backdrop = $(".backdrop");
      this.dialog = $(".dialog");
      this.form = $("form");
      this.input = $("input");
      this.send = $(".send");
      this.result = $(".result");
      this.status = $(".status");
      this.panel = $(".panel");
      this.stateLabel = $(".state-label");
      this.answer = $(".answer");
      this.tips = $(".tips");
      this.tipCount = 0;
      this.tipFor = null;
      this.tipTimer = 0;
      this.sourcesLabel = $(".sources-label");
      this.sources = $(".sources");
      this.score = $(".score");
      this.startersBox = $(".starters");
      this.conversation = $(".conversation");
      this.transcript = $(".transcript");
      this.feedbackForm = $("form.feedback");
      this.reasons = $(".reasons");
      this.reasonText = $(".reason-text");
      this.feedbackStatus = $(".feedback-status");
      this.returnFocus = null;
      this.pending = null;
      this.sequence = 0;
      this.turns = []; // earlier turns of this conversation, sent with each question
      this.current = null; // the answer on show: {id, question, answer, cited}
      this.startersLoaded = false;
      const options = $(".reason-options");
      for (const [value, label] of REASONS) {
        const choice = document.createElement("label");
        const radio = document.createElement("input");
        radio.type = "radio";
        radio.name = "reason";
        radio.value = value;
        choice.append(radio, document.createTextNode(label));
        options.append(choice);
      }
      $(".new-chat").addEventListener("click", () => this.newConversation());
      for (const thumb of this.root.querySelectorAll(".thumb")) {
        thumb.addEventListener("click", () => this.rate(thumb.getAttribute("data-rating")));
      }
      this.feedbackForm.addEventListener("submit", (event) => {
        event.preventDefault();
        const chosen = this.feedbackForm.querySelector("input[name=reason]:checked");
        this.sendFeedback("down", chosen ? chosen.value : "", this.reasonText.value.trim());
      });
      $(".shortcut").textContent = isMac ? "\u2318K" : "Ctrl K";
      this.launcher.setAttribute("aria-keyshortcuts", isMac ? "Meta+K" : "Control+K");
      this.onDocumentKey = this.onDocumentKey.bind(this);
      this.onDocumentClick = this.onDocumentClick.bind(this);
      this.onFocusIn = this.onFocusIn.bind(this);
      this.launcher.addEventListener("click", () => this.open());
      this.root.querySelector(".close").addEventListener("click", () => this.close());
      this.backdrop.addEventListener("mousedown", (event) => {
        if (event.target === this.backdrop) this.close();
      });
      this.dialog.addEventListener("keydown", (event) => this.onDialogKey(event));
      this.form.addEventListener("submit", (event) => {
        event.preventDefault();
        this.ask(this.input.value);
      });
      this.root.addEventListener("click", (event) => {
        const link = event.target.closest && event.target.closest("a[href]");
        if (link && !event.defaultPrevented && !event.metaKey && !event.ctrlKey && !event.shiftKey) {
          this.close({ restoreFocus: false });
        }
      });
    }

    connectedCallback() {
      this.input.placeholder = this.getAttribute("placeholder") || "Type a question and press Enter";
      this.launcher.hidden = this.getAttribute("button") === "false";
      document.addEventListener("keydown", this.onDocumentKey);
      document.addEventListener("click", this.onDocumentClick);
      document.addEventListener("focusin", this.onFocusIn);
    }

    disconnectedCallback() {
      document.removeEventListener("keydown", this.onDocumentKey);
      document.removeEventListener("click", this.onDocumentClick);
      document.removeEventListener("focusin", this.onFocusIn);
    }

    get endpoint() {
      return new URL(this.getAttribute("endpoint") || "/api/ask", this.getAttribute("base") || document.baseURI).href;
    }

    apiUrl(name) {
      return new URL(name, this.endpoint).href; // /api/ask -> /api/feedback, /api/starters
    }

    get isOpen() {
      return !this.backdrop.hidden;
    }

    open(question) {
      if (!this.isOpen) {
        const active = deepActiveElement();
        this.returnFocus = active && active !== document.body ? active : null;
        this.backdrop.hidden = false;
        this.dispatchEvent(new CustomEvent("sitecite-open", { bubbles: true, composed: true }));
      }
      if (typeof question === "string") this.input.value = question;
      this.input.focus();
      this.input.select();
      this.loadStarters();
    }

    async loadStarters() {
      if (this.startersLoaded) return;
      this.startersLoaded = true;
      let questions = [];
      try {
        const response = await fetch(this.apiUrl("starters"), {
          method: "GET", mode: "cors", credentials: "omit", headers: { Accept: "application/json" },
        });
        const body = response.ok ? await response.json() : null;
        questions = body && Array.isArray(body.questions) ? body.questions.filter((q) => typeof q === "string") : [];
      } catch (_) {
        questions = [];
      }
      const list = this.startersBox.querySelector("ul");
      list.replaceChildren();
      for (const question of questions.slice(0, 6)) {
        const item = document.createElement("li");
        const button = text("button", "starter", question);
        button.type = "button";
        button.addEventListener("click", () => {
          this.input.value = question;
          this.ask(question);
        });
        item.append(button);
        list.append(item);
      }
      this.showStarters();
    }

    showStarters() {
      const empty = this.panel.hidden && !this.turns.length && !this.current;
      this.startersBox.hidden = !empty || !this.startersBox.querySelector("li");
    }

    newConversation() {
      this.turns = [];
      this.current = null;
      this.transcript.replaceChildren();
      this.conversation.hidden = true;
      this.panel.hidden = true;
      this.feedbackForm.hidden = true;
      this.showStarters();
      this.input.value = "";
      this.input.focus();
    }

    close({ restoreFocus = true } = {}) {
      if (!this.isOpen) return;
      this.backdrop.hidden = true;
      const target = this.returnFocus;
      this.returnFocus = null;
      if (restoreFocus && target && target.isConnected && typeof target.focus === "function") {
        target.focus();
      }
      this.dispatchEvent(new CustomEvent("sitecite-close", { bubbles: true, composed: true }));
    }

    onDocumentKey(event) {
      const key = (event.key || "").toLowerCase();
      if (key === "k" && (event.metaKey || event.ctrlKey) && !event.altKey && !event.shiftKey) {
        event.preventDefault();
        if (this.isOpen) this.close();
        else this.open();
      }
    }

    onDocumentClick(event) {
      const trigger = event.target.closest && event.target.closest("[data-sitecite-ask], [data-sitecite-open]");
      if (!trigger) return;
      event.preventDefault();
      const question = trigger.getAttribute("data-sitecite-ask");
      this.open(question || undefined);
      if (question) this.ask(question);
    }

    onFocusIn(event) {
      // Focus that escapes the modal (e.g. a click on the page behind) is brought back.
      if (this.isOpen && event.target !== this && !this.contains(event.target)) this.input.focus();
    }

    focusable() {
      return [...this.dialog.querySelectorAll("a[href], button:not([disabled]), input:not([disabled]), [tabindex='0']")]
        .filter((element) => !element.closest("[hidden]"));
    }

    onDialogKey(event) {
      if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        if (this.tipFor) this.hideTip(0); // a shown quote goes first, then the dialog
        else this.close();
        return;
      }
      if (event.key !== "Tab") return;
      const items = this.focusable();
      if (!items.length) return;
      const current = this.root.activeElement;
      const index = items.indexOf(current);
      let next = null;
      if (event.shiftKey && index <= 0) next = items[items.length - 1];
      else if (!event.shiftKey && (index === -1 || index === items.length - 1)) next = items[0];
      if (next) {
        event.preventDefault();
        next.focus();
      }
    }

    async ask(raw) {
      const question = String(raw || "").trim();
      if (!question) {
        this.showStatus("Type a question first.", false);
        this.input.focus();
        return;
      }
      if (this.pending) this.pending.abort();
      this.archiveCurrent();
      const history = this.turns.slice(-HISTORY_TURNS);
      const controller = new AbortController();
      const sequence = ++this.sequence;
      this.pending = controller;
      const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
      this.setLoading(true);
      let outcome;
      try {
        const response = await fetch(this.endpoint, {
          method: "POST", mode: "cors", credentials: "omit", signal: controller.signal,
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify(history.length ? { question, history } : { question }),
        });
        const body = await response.json().catch(() => null);
        outcome = { response, body };
      } catch (error) {
        outcome = { error };
      } finally {
        clearTimeout(timer);
      }
      if (sequence !== this.sequence) return; // a newer question replaced this one
      this.pending = null;
      this.setLoading(false);
      this.render(outcome);
    }

    setLoading(loading) {
      this.result.setAttribute("aria-busy", loading ? "true" : "false");
      this.send.disabled = loading;
      this.dialog.setAttribute("data-loading", loading ? "true" : "false");
      if (loading) {
        this.panel.hidden = true;
        this.showStatus("Searching this site\u2026", true);
      } else {
        this.showStatus("", false);
      }
    }

    showStatus(message, spinning) {
      this.status.replaceChildren();
      if (spinning) {
        const spinner = text("span", "spinner");
        spinner.setAttribute("aria-hidden", "true");
        this.status.append(spinner);
      }
      if (message) this.status.append(text("span", "", message));
    }

    render({ response, body, error }) {
      if (error || !response) {
        const timedOut = error && error.name === "AbortError";
        this.showPanel("error", "Something went wrong",
          timedOut ? "The answer took too long. Please try again." : "Could not reach the answer service.");
        return;
      }
      if (response.status === 429) {
        const wait = parseInt(response.headers.get("Retry-After") || "", 10);
        this.showPanel("error", "Slow down",
          `Too many questions from this address. Try again in ${Number.isFinite(wait) ? wait : 60} seconds.`);
        return;
      }
      if (!response.ok || !body || typeof body !== "object") {
        const message = body && body.error && body.error.message ? body.error.message
          : `The answer service replied with status ${response.status}.`;
        this.showPanel("error", "Could not answer", message);
        return;
      }
      const outcome = body.outcome || (body.refused ? "refused" : "answered");
      if (outcome === "answered") this.showAnswer(body, "answer", "Answer");
      else if (outcome === "pointed") this.showAnswer(body, "pointed", "No direct answer");
      else this.showAnswer(body, "refused", "Not on this site");
      this.remember(body);
    }

    remember(body) {
      const citations = Array.isArray(body.citations) ? body.citations : [];
      this.current = {
        id: typeof body.id === "string" ? body.id : "",
        question: String(body.resolved_question || body.question || ""),
        answer: String(body.answer || ""),
        cited: citations.map((c) => (c && typeof c.id === "string" ? c.id : "")).filter(Boolean),
      };
      this.resetFeedback();
    }

    archiveCurrent() {
      if (!this.current) return;
      const turn = this.current;
      this.current = null;
      this.turns.push({ question: turn.question, answer: turn.answer, cited: turn.cited });
      this.turns = this.turns.slice(-HISTORY_TURNS);
      const item = document.createElement("li");
      item.append(text("span", "q", turn.question), text("span", "a", plainAnswer(turn.answer)));
      this.transcript.append(item);
      while (this.transcript.children.length > HISTORY_TURNS) this.transcript.firstChild.remove();
      this.conversation.hidden = false;
      this.feedbackForm.hidden = true;
      this.startersBox.hidden = true;
    }

    resetFeedback() {
      this.feedbackForm.hidden = !(this.current && this.current.id);
      this.reasons.hidden = true;
      this.feedbackStatus.textContent = "";
      this.reasonText.value = "";
      for (const radio of this.feedbackForm.querySelectorAll("input[name=reason]")) radio.checked = false;
      for (const thumb of this.root.querySelectorAll(".thumb")) thumb.setAttribute("aria-pressed", "false");
    }

    rate(rating) {
      for (const thumb of this.root.querySelectorAll(".thumb")) {
        thumb.setAttribute("aria-pressed", thumb.getAttribute("data-rating") === rating ? "true" : "false");
      }
      if (rating === "down") {
        this.reasons.hidden = false;
        this.feedbackStatus.textContent = "";
        this.feedbackForm.querySelector("input[name=reason]").focus();
        return;
      }
      this.reasons.hidden = true;
      this.sendFeedback("up", "", "");
    }

    async sendFeedback(rating, reason, detail) {
      if (!this.current || !this.current.id) return;
      const body = { id: this.current.id, rating };
      if (reason) body.reason = reason;
      if (detail) body.text = detail.slice(0, 500);
      let message;
      try {
        const response = await fetch(this.apiUrl("feedback"), {
          method: "POST", mode: "cors", credentials: "omit",
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify(body),
        });
        const reply = await response.json().catch(() => null);
        message = response.ok ? "Thank you: your feedback was recorded."
          : (reply && reply.error && reply.error.message) || `Feedback failed (status ${response.status}).`;
      } catch (_) {
        message = "Could not send the feedback.";
      }
      this.reasons.hidden = true;
      this.feedbackStatus.textContent = String(message);
    }

    resetPanel(state, label) {
      this.panel.hidden = false;
      this.startersBox.hidden = true;
      this.panel.setAttribute("data-state", state);
      this.dialog.setAttribute("data-state", state);
      this.stateLabel.textContent = label;
      this.answer.replaceChildren();
      this.tips.replaceChildren();
      this.tipFor = null;
      this.sources.replaceChildren();
      this.sources.hidden = true;
      this.sourcesLabel.hidden = true;
      this.score.hidden = true;
      this.score.textContent = "";
    }

    showPanel(state, label, message) {
      this.resetPanel(state, label);
      this.answer.textContent = String(message);
      if (state === "error") {
        this.current = null;
        this.feedbackForm.hidden = true;
      }
    }

    // An answer, a pointed reply (no direct answer: the closest sections, each with its line)
    // or a refusal (with the sections it points at, if any), with its citations.
    showAnswer(body, state, label) {
      this.resetPanel(state, label);
      const citations = Array.isArray(body.citations) ? body.citations.filter((c) => c && typeof c === "object") : [];
      const byNumber = new Map(citations.map((c) => [String(c.n), c]));
      const shown = state === "pointed" ? pointerLead(String(body.answer || "")) : String(body.answer || "");
      const said = plainAnswer(shown);
      const tips = new Map(citations.map((c) => [String(c.n), this.tip(c)]));
      const onText = (piece) => String(piece).split(/(\[\d+\])/).filter(Boolean).map((part) => {
        const marker = /^\[(\d+)\]$/.exec(part);
        const citation = marker && byNumber.get(marker[1]);
        return citation ? this.citationMarker(citation, tips.get(marker[1])) : document.createTextNode(part);
      });
      const fallback = state === "refused" ? "The site doesn't say." : "";
      renderAnswer(this.answer, shown || fallback, onText);
      for (const citation of citations) this.sources.append(this.sourceItem(citation, tips.get(String(citation.n)), said));
      this.sourcesLabel.textContent = state === "pointed" ? "Closest sections on this site"
        : state === "refused" ? "See" : "Sources";
      this.sources.hidden = this.sourcesLabel.hidden = citations.length === 0;
      if (state === "answer" && typeof body.score === "number" && citations.length) {
        this.score.textContent = `Mean similarity of cited sections: ${body.score.toFixed(2)}`;
        this.score.title = "Cosine similarity between the question and each cited section, averaged. " +
          "It says how close the sources are, not how likely the answer is to be right.";
        this.score.hidden = false;
      }
    }

    describe(citation) {
      const title = String(citation.title || citation.id || "source");
      return citation.heading && citation.heading !== citation.title ? `${title} \u203a ${citation.heading}` : title;
    }

    quotes(citation) {
      const quotes = Array.isArray(citation.quotes) ? citation.quotes.filter((q) => typeof q === "string") : [];
      return quotes.map(quoteLine).filter(Boolean);
    }

    // The words a citation rests on, shown on hover and keyboard focus of its markers and its
    // source link, and read as their description (aria-describedby).
    tip(citation) {
      const tip = text("div", "tip");
      tip.id = `sc-tip-${++this.tipCount}`;
      tip.setAttribute("role", "tooltip");
      tip.hidden = true;
      tip.append(text("span", "tip-where", this.describe(citation)));
      const quotes = this.quotes(citation);
      for (const quote of quotes) tip.append(text("q", "tip-quote", quote));
      if (!quotes.length) tip.append(text("span", "tip-none", String(citation.url || "")));
      tip.addEventListener("mouseenter", () => clearTimeout(this.tipTimer));
      tip.addEventListener("mouseleave", () => this.hideTip(150));
      this.tips.append(tip);
      return tip;
    }

    withTip(element, tip) {
      if (!tip) return element;
      element.setAttribute("aria-describedby", tip.id);
      const show = () => this.showTip(tip, element);
      element.addEventListener("mouseenter", show);
      element.addEventListener("focus", show);
      element.addEventListener("mouseleave", () => this.hideTip(150));
      element.addEventListener("blur", () => this.hideTip(0));
      return element;
    }

    showTip(tip, anchor) {
      clearTimeout(this.tipTimer);
      if (this.tipFor && this.tipFor !== tip) this.tipFor.hidden = true;
      this.tipFor = tip;
      tip.hidden = false;
      const box = this.result.getBoundingClientRect();
      const at = anchor.getBoundingClientRect();
      const width = Math.min(tip.offsetWidth, box.width - 16);
      const left = Math.max(8, Math.min(at.left - box.left - 12, box.width - width - 8));
      tip.style.left = `${left}px`;
      tip.style.top = `${at.bottom - box.top + 6}px`;
    }

    hideTip(delay) {
      clearTimeout(this.tipTimer);
      const hide = () => {
        if (this.tipFor) this.tipFor.hidden = true;
        this.tipFor = null;
      };
      if (delay) this.tipTimer = setTimeout(hide, delay);
      else hide();
    }

    citationMarker(citation, tip) {
      const href = safeUrl(citation.url);
      const marker = text(href ? "a" : "span", "cite", `[${citation.n}]`);
      if (href) marker.href = href;
      else marker.tabIndex = 0; // its quote is still shown on focus
      marker.setAttribute("aria-label", `source ${citation.n}: ${this.describe(citation)}`);
      return this.withTip(marker, tip);
    }

    // A source: its page and section as a link, its address, and the line it rests on when the
    // text above does not already say it (so a pointed reply shows each section's line).
    sourceItem(citation, tip, said) {
      const item = document.createElement("li");
      item.value = Number(citation.n) || 0;
      const href = safeUrl(citation.url);
      const label = text(href ? "a" : "span", "source", this.describe(citation));
      if (href) label.href = href;
      const lines = this.quotes(citation).filter((quote) => !said.includes(quote));
      item.append(lines.length ? label : this.withTip(label, tip)); // a line on show needs no tip
      for (const line of lines) item.append(text("q", "line", line));
      item.append(text("span", "url", String(citation.url || "")));
      return item;
    }
  }

  window.customElements.define(TAG, SitecitePalette);

  function mount() {
    if (document.querySelector(TAG)) return;
    const palette = document.createElement(TAG);
    palette.setAttribute("endpoint", scriptOptions.endpoint || "/api/ask");
    palette.setAttribute("base", scriptBase);
    for (const name of ["theme", "button", "placeholder"]) {
      if (scriptOptions[name]) palette.setAttribute(name, scriptOptions[name]);
    }
    document.body.append(palette);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount);
  else mount();
})();
