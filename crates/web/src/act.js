// Acts on one element of the page that Baton's content pass numbered
// (window.__batonEls), or that an XPath names. Called with
// {op, target, value}; returns {ok: true, ...} or {error: "..."}.
((args) => {
  const { op, target, value } = args;
  const find = () => {
    const map = window.__batonEls;
    if (map && map.has(target)) {
      const el = map.get(target);
      return el.isConnected ? el : { error: `element ${target} is no longer on the page; read the page again` };
    }
    if (/^e\d+$/.test(target)) return { error: `no element ${target} on this page; read the page (get_page_content) for current ids` };
    try {
      const r = document.evaluate(target, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null);
      if (r.singleNodeValue) return r.singleNodeValue;
    } catch (e) {
      return { error: `\`${target}\` is neither an element id (e12) nor a valid XPath` };
    }
    return { error: `nothing on the page matches ${target}` };
  };
  const el = find();
  if (el.error) return el;
  const describe = () => ({ tag: el.localName, label: (el.innerText || el.value || el.getAttribute("aria-label") || "").replace(/\s+/g, " ").trim().slice(0, 80) });
  const fire = (name) => el.dispatchEvent(new Event(name, { bubbles: true }));
  const setValue = (v) => {
    const proto = el.localName === "textarea" ? HTMLTextAreaElement.prototype
      : el.localName === "select" ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(proto, "value");
    if (setter && setter.set && el instanceof el.ownerDocument.defaultView.HTMLElement && "value" in el) setter.set.call(el, v);
    else if (el.isContentEditable) el.textContent = v;
    else return false;
    fire("input");
    fire("change");
    return true;
  };
  switch (op) {
    case "point": {
      if (el.disabled) return { error: `${target} is disabled` };
      el.scrollIntoView({ block: "center", inline: "center" });
      const r = el.getBoundingClientRect();
      let x = r.left + r.width / 2, y = r.top + r.height / 2;
      for (let w = el.ownerDocument.defaultView; w && w.frameElement; w = w.parent) {
        const f = w.frameElement.getBoundingClientRect();
        x += f.left; y += f.top;
      }
      const hit = document.elementFromPoint(x, y);
      const reachable = !!hit && (hit === el || el.contains(hit) || hit.shadowRoot || hit.localName === "iframe" || (hit.getRootNode() !== document));
      return { ok: true, x, y, reachable, ...describe() };
    }
    case "click": {
      el.click();
      return { ok: true, ...describe() };
    }
    case "fill": {
      if (el.disabled || el.readOnly) return { error: `${target} cannot be edited (disabled or read-only)` };
      el.focus();
      const t = (el.getAttribute("type") || "").toLowerCase();
      if (t === "checkbox" || t === "radio") return { error: `${target} is a ${t}; use set_checkbox` };
      if (el.localName === "select") return { error: `${target} is a list; use select_option` };
      if (!setValue(String(value))) return { error: `${target} (${el.localName}) takes no text` };
      return { ok: true, value: t === "password" ? "(set)" : el.value, ...describe() };
    }
    case "select": {
      if (el.localName !== "select") return { error: `${target} is a ${el.localName}, not a list` };
      const want = String(value).trim().toLowerCase();
      const opt = Array.from(el.options).find((o) => o.value.toLowerCase() === want)
        || Array.from(el.options).find((o) => o.text.trim().toLowerCase() === want)
        || Array.from(el.options).find((o) => o.text.trim().toLowerCase().includes(want));
      if (!opt) return { error: `${target} has no option ${value}; its options: ${Array.from(el.options).map((o) => o.text.trim()).join(", ")}` };
      setValue(opt.value);
      return { ok: true, value: opt.value, text: opt.text.trim() };
    }
    case "check": {
      const t = (el.getAttribute("type") || "").toLowerCase();
      const role = el.getAttribute("role");
      if (t !== "checkbox" && t !== "radio" && role !== "checkbox" && role !== "switch" && role !== "radio")
        return { error: `${target} is not a checkbox or radio button` };
      const now = t ? el.checked : el.getAttribute("aria-checked") === "true";
      if (now !== !!value) el.click();
      const after = t ? el.checked : el.getAttribute("aria-checked") === "true";
      return after === !!value ? { ok: true, checked: after } : { error: `${target} did not change (the page refused it)` };
    }
    case "inspect": {
      // What acting on it would do, for the user's card (nothing changes).
      const form = el.form || el.closest("form");
      const kindOf = (el.getAttribute("type") || "").toLowerCase();
      const submits = !!form && (el.localName === "button" ? kindOf !== "button" && kindOf !== "reset" : kindOf === "submit" || kindOf === "image");
      const link = el.closest("a[href]");
      // A field is named by its label, not by what is typed in it.
      const named = (el.labels && el.labels.length ? el.labels[0].innerText : "")
        || el.getAttribute("aria-label") || el.getAttribute("placeholder") || el.getAttribute("name") || "";
      return {
        ok: true, ...describe(), type: kindOf || null, role: el.getAttribute("role"),
        field: named.replace(/\s+/g, " ").trim().slice(0, 80) || null,
        href: link ? link.href : null,
        // formAction reads as the page's address when the button has no
        // formaction of its own: the form's then.
        form: form ? {
          action: el.hasAttribute("formaction") ? el.formAction : form.action,
          method: (el.hasAttribute("formmethod") ? el.formMethod : form.method || "get").toUpperCase(),
          submits,
        } : null,
        page: location.href,
      };
    }
    case "focus": {
      el.focus();
      return { ok: true, ...describe() };
    }
    default:
      return { error: `unknown action ${op}` };
  }
})
