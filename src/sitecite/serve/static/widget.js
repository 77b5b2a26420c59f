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

  const CSS = `
:host { all: initial; --sc-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --sc-bg: #ffffff; --sc-fg: #1b1f24; --sc-muted: #57606a; --sc-border: #d0d7de;
  --sc-accent: #0b5cad; --sc-accent-fg: #ffffff; --sc-soft: #f3f6f9; --sc-refuse: #9a6700;
  --sc-refuse-bg: #fff8e5; --sc-error: #b42318; --sc-shadow: 0 24px 64px rgba(15, 23, 42, .28);
  --sc-backdrop: rgba(15, 23, 42, .45); color-scheme: light; font-family: var(--sc-font); }
:host([theme="dark"]) { --sc-bg: #161b22; --sc-fg: #e6edf3; --sc-muted: #9da7b3; --sc-border: #30363d;
  --sc-accent: #58a6ff; --sc-accent-fg: #0d1117; --sc-soft: #0d1117; --sc-refuse: #e3b341;
  --sc-refuse-bg: #2b2111; --sc-error: #ff7b72; --sc-shadow: 0 24px 64px rgba(0, 0, 0, .6);
  --sc-backdrop: rgba(1, 4, 9, .7); color-scheme: dark; }
@media (prefers-color-scheme: dark) {
  :host(:not([theme="light"])) { --sc-bg: #161b22; --sc-fg: #e6edf3; --sc-muted: #9da7b3;
    --sc-border: #30363d; --sc-accent: #58a6ff; --sc-accent-fg: #0d1117; --sc-soft: #0d1117;
    --sc-refuse: #e3b341; --sc-refuse-bg: #2b2111; --sc-error: #ff7b72;
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
.result { padding: 16px 20px 4px; min-height: 24px; }
.status { margin: 0 0 12px; color: var(--sc-muted); display: flex; gap: 10px; align-items: center; }
.status:empty { display: none; }
.spinner { width: 16px; height: 16px; border-radius: 50%; border: 2px solid var(--sc-border);
  border-top-color: var(--sc-accent); animation: spin .8s linear infinite; flex: none; }
@keyframes spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .spinner { animation: none; } }
.state-label { margin: 0 0 6px; font-size: 13px; font-weight: 700; text-transform: uppercase; letter-spacing: .04em; }
.answer { margin: 0 0 14px; white-space: pre-wrap; overflow-wrap: anywhere; }
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
.score { margin: 0 0 12px; font-size: 13px; color: var(--sc-muted); }
.panel[data-state="answer"] .state-label { color: var(--sc-accent); }
.panel[data-state="refused"] { border-left: 4px solid var(--sc-refuse); background: var(--sc-refuse-bg);
  padding: 12px 14px; border-radius: 8px; margin-bottom: 12px; }
.panel[data-state="refused"] .state-label { color: var(--sc-refuse); }
.panel[data-state="error"] .state-label { color: var(--sc-error); }
.panel[data-state="refused"] .answer, .panel[data-state="error"] .answer { margin: 0; }
.footer { display: flex; flex-wrap: wrap; gap: 6px 14px; padding: 10px 20px 14px; font-size: 13px;
  color: var(--sc-muted); border-top: 1px solid var(--sc-border); }
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
      <p class="status"></p>
      <div class="panel" data-state="idle" hidden>
        <p class="state-label"></p>
        <p class="answer"></p>
        <p class="sources-label" hidden>Sources</p>
        <ol class="sources" hidden></ol>
        <p class="score" hidden></p>
      </div>
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
      this.sourcesLabel = $(".sources-label");
      this.sources = $(".sources");
      this.score = $(".score");
      this.returnFocus = null;
      this.pending = null;
      this.sequence = 0;
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
      return [...this.dialog.querySelectorAll("a[href], button:not([disabled]), input:not([disabled])")]
        .filter((element) => !element.closest("[hidden]"));
    }

    onDialogKey(event) {
      if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        this.close();
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
          body: JSON.stringify({ question }),
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
      if (body.refused) {
        this.showPanel("refused", "Not on this site", body.answer || "The site doesn't say.");
        return;
      }
      this.showAnswer(body);
    }

    resetPanel(state, label) {
      this.panel.hidden = false;
      this.panel.setAttribute("data-state", state);
      this.dialog.setAttribute("data-state", state);
      this.stateLabel.textContent = label;
      this.answer.replaceChildren();
      this.sources.replaceChildren();
      this.sources.hidden = true;
      this.sourcesLabel.hidden = true;
      this.score.hidden = true;
      this.score.textContent = "";
    }

    showPanel(state, label, message) {
      this.resetPanel(state, label);
      this.answer.textContent = String(message);
    }

    showAnswer(body) {
      this.resetPanel("answer", "Answer");
      const citations = Array.isArray(body.citations) ? body.citations.filter((c) => c && typeof c === "object") : [];
      const byNumber = new Map(citations.map((c) => [String(c.n), c]));
      for (const part of String(body.answer || "").split(/(\[\d+\])/)) {
        const marker = /^\[(\d+)\]$/.exec(part);
        const citation = marker && byNumber.get(marker[1]);
        this.answer.append(citation ? this.citationMarker(citation) : document.createTextNode(part));
      }
      for (const citation of citations) this.sources.append(this.sourceItem(citation));
      this.sources.hidden = this.sourcesLabel.hidden = citations.length === 0;
      if (typeof body.score === "number" && citations.length) {
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

    citationMarker(citation) {
      const href = safeUrl(citation.url);
      const marker = text(href ? "a" : "span", "cite", `[${citation.n}]`);
      if (href) marker.href = href;
      marker.setAttribute("aria-label", `source ${citation.n}: ${this.describe(citation)}`);
      return marker;
    }

    sourceItem(citation) {
      const item = document.createElement("li");
      item.value = Number(citation.n) || 0;
      const href = safeUrl(citation.url);
      const label = text(href ? "a" : "span", "source", this.describe(citation));
      if (href) label.href = href;
      item.append(label, text("span", "url", String(citation.url || "")));
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
