// Baton's one pass over a live page: walks the composed tree (open shadow
// roots, same-origin iframes), skips what a person does not see (hidden,
// zero-size, clipped off-screen), drops scripts, styles, inline images and
// tracking pixels, bypasses unknown custom elements (their children stay),
// and numbers the interactive elements (window.__batonEls) so tools can act
// on them. Returns {title, url, html, elements}: `html` is clean markup for
// the Markdown converter, with each interactive element replaced by the
// token BATON<TOKEN>EL<id>X (TOKEN: random for each pass, so page text
// cannot imitate it); `elements` describes them. Called with TOKEN.
((TOKEN) => {
  const KEEP = new Set(["p", "div", "span", "section", "article", "main", "header", "footer",
    "nav", "aside", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "table", "thead",
    "tbody", "tfoot", "tr", "td", "th", "caption", "b", "strong", "i", "em", "u", "mark",
    "small", "sub", "sup", "pre", "code", "blockquote", "br", "hr", "img", "dl", "dt", "dd",
    "figure", "figcaption", "form", "fieldset", "legend", "address", "time", "abbr", "q", "s",
    "del", "ins", "kbd", "samp", "var", "details", "label", "center", "font", "picture"]);
  const DROP = new Set(["script", "style", "noscript", "template", "svg", "canvas", "object",
    "embed", "meta", "link", "head", "title", "base", "audio", "video", "map"]);
  const ROLES = new Set(["button", "link", "checkbox", "radio", "tab", "menuitem", "switch",
    "option", "combobox", "textbox", "searchbox", "slider", "menuitemcheckbox", "menuitemradio"]);
  const elements = [];
  let next = 1;
  // Each pass numbers afresh (short ids); tools find an element by its id
  // in this map, wherever it lives (shadow root, iframe).
  const registry = new Map();
  window.__batonEls = registry;

  const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const attr = (s) => esc(s).replace(/"/g, "&quot;");
  const text = (s, n) => (s || "").replace(/\s+/g, " ").trim().slice(0, n);

  function hidden(el, view) {
    if (el.hasAttribute("hidden") || el.getAttribute("aria-hidden") === "true") return true;
    const tag = el.localName;
    if (tag === "option" || tag === "optgroup") return false;
    const cs = view.getComputedStyle(el);
    if (cs.display === "none") return true;
    if (cs.visibility === "hidden" || cs.visibility === "collapse") return true;
    if (parseFloat(cs.opacity) === 0) return true;
    if (cs.display === "contents") return false;
    const r = el.getBoundingClientRect();
    const clipped = cs.overflow === "hidden" || cs.clip !== "auto" ||
      (cs.clipPath && cs.clipPath !== "none");
    if (r.width <= 1 && r.height <= 1 && (clipped || el.childElementCount === 0) &&
        tag !== "br" && tag !== "hr" && tag !== "input") return true;
    const doc = el.ownerDocument.documentElement;
    const sx = view.scrollX, sy = view.scrollY;
    if (r.right + sx <= 0 || r.bottom + sy <= 0) return true;
    if (r.left + sx >= Math.max(doc.scrollWidth, view.innerWidth) + 500) return true;
    return false;
  }

  function kind(el) {
    const tag = el.localName;
    const role = (el.getAttribute("role") || "").toLowerCase();
    if (tag === "a" && el.hasAttribute("href")) return "link";
    if (tag === "button") return "button";
    if (tag === "select") return "select";
    if (tag === "textarea") return "textarea";
    if (tag === "summary") return "button";
    if (tag === "input") {
      const t = (el.getAttribute("type") || "text").toLowerCase();
      if (t === "hidden") return null;
      if (t === "submit" || t === "button" || t === "reset" || t === "image") return "button";
      if (t === "checkbox" || t === "radio") return t;
      return "input";
    }
    if (ROLES.has(role)) return role;
    if (el.isContentEditable && el.getAttribute("contenteditable") !== null) return "textbox";
    return null;
  }

  function labelOf(el, doc) {
    const aria = el.getAttribute("aria-label");
    if (aria) return text(aria, 100);
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const t = by.split(/\s+/).map((id) => doc.getElementById(id)).filter(Boolean)
        .map((e) => e.textContent).join(" ");
      if (text(t, 100)) return text(t, 100);
    }
    if (el.labels && el.labels.length) return text(el.labels[0].textContent, 100);
    const tag = el.localName;
    if (tag === "input") {
      const t = (el.type || "").toLowerCase();
      if (t === "submit" || t === "button" || t === "reset") return text(el.value || t, 100);
      return text(el.placeholder || el.title || el.name, 100);
    }
    if (tag === "select" || tag === "textarea") return text(el.title || el.name || el.placeholder, 100);
    // textContent, not innerText: innerText lays text out, which costs
    // milliseconds per link on a big page.
    const t = text(el.textContent, 100);
    if (t) return t;
    const img = el.querySelector && el.querySelector("img[alt]");
    return text((img && img.alt) || el.title, 100);
  }

  function xpath(el) {
    const parts = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentNode) {
      if (n.id && /^[A-Za-z][\w-]*$/.test(n.id) && n.ownerDocument.querySelectorAll("#" + n.id).length === 1) {
        parts.unshift(`//*[@id="${n.id}"]`);
        return parts.join("/");
      }
      let i = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === n.localName) i++;
      parts.unshift(`${n.localName}[${i}]`);
    }
    return "/" + parts.join("/");
  }

  function describe(el, type, doc, frame) {
    const id = "e" + next++;
    registry.set(id, el);
    const d = { id, type, label: labelOf(el, doc) };
    if (el.disabled) d.enabled = false;
    if (type === "checkbox" || type === "radio") d.checked = !!el.checked;
    if (type === "input" || type === "textarea") {
      d.inputType = (el.getAttribute("type") || (type === "textarea" ? "textarea" : "text")).toLowerCase();
      if (d.inputType === "password") d.value = el.value ? "(set)" : "";
      else d.value = text(el.value, 200);
      if (el.required) d.required = true;
    }
    if (type === "select") {
      d.value = el.value;
      d.options = Array.from(el.options).slice(0, 50).map((o) => ({ value: o.value, text: text(o.text, 60), ...(o.selected ? { selected: true } : {}) }));
    }
    if (type === "link") d.href = el.href;
    if (el.name) d.name = el.name;
    if (el.id) d.htmlId = el.id;
    if (frame) d.frame = frame;
    if (el.getRootNode() !== doc) d.shadow = true;
    // A link is followed by its address; other elements keep an XPath to
    // be found again after the page changes.
    if (type !== "link") d.xpath = xpath(el);
    elements.push(d);
    return id;
  }

  function walk(node, out, doc, view, frame) {
    if (node.nodeType === 3) { out.push(esc(node.nodeValue)); return; }
    if (node.nodeType !== 1 && node.nodeType !== 11) return;
    if (node.nodeType === 11) { for (const c of node.childNodes) walk(c, out, doc, view, frame); return; }
    const el = node, tag = el.localName;
    if (DROP.has(tag)) return;
    if (hidden(el, view)) return;
    const type = kind(el);
    if (type) {
      out.push(" BATON" + TOKEN + "EL" + describe(el, type, doc, frame) + "X ");
      return;
    }
    if (tag === "iframe" || tag === "frame") {
      let inner = null;
      try { inner = el.contentDocument; } catch (e) { inner = null; }
      if (inner && inner.body) {
        out.push("<div>");
        walk(inner.body, out, inner, inner.defaultView, frame ? frame + ">" + xpath(el) : xpath(el));
        out.push("</div>");
      }
      return;
    }
    if (tag === "img") {
      const src = el.getAttribute("src") || "";
      const w = el.naturalWidth || el.width, h = el.naturalHeight || el.height;
      if (src.startsWith("data:") || (w <= 1 && h <= 1)) {
        if (el.alt) out.push(esc(` [image: ${text(el.alt, 100)}] `));
        return;
      }
      out.push(`<img src="${attr(el.src)}" alt="${attr(text(el.alt, 100))}">`);
      return;
    }
    const keep = KEEP.has(tag);
    if (keep) out.push(`<${tag}>`);
    if (el.shadowRoot) {
      walk(el.shadowRoot, out, doc, view, frame);
    } else if (tag === "slot") {
      const assigned = el.assignedNodes({ flatten: true });
      for (const c of (assigned.length ? assigned : el.childNodes)) walk(c, out, doc, view, frame);
    } else {
      for (const c of el.childNodes) walk(c, out, doc, view, frame);
    }
    if (keep && tag !== "br" && tag !== "hr" && tag !== "img") out.push(`</${tag}>`);
  }

  const out = [];
  if (document.body) walk(document.body, out, document, window, null);
  return { title: document.title, url: location.href, html: out.join(""), elements };
})
