// The results of a web search page: DuckDuckGo's HTML results, else links
// under headings (most engines), as [{title, url, snippet}].
(() => {
  const text = (e) => (e ? (e.innerText || e.textContent || "") : "").replace(/\s+/g, " ").trim();
  const out = [];
  const seen = new Set();
  const push = (a, snippetEl) => {
    let url = a.href;
    try {
      const u = new URL(url);
      const inner = u.searchParams.get("uddg") || u.searchParams.get("url") || u.searchParams.get("q");
      if (inner && /^https?:/.test(inner)) url = inner;
    } catch (e) { return; }
    if (!/^https?:/.test(url) || seen.has(url)) return;
    seen.add(url);
    out.push({ title: text(a).slice(0, 200), url, snippet: text(snippetEl).slice(0, 300) });
  };
  const ddg = document.querySelectorAll(".result");
  if (ddg.length) {
    for (const r of ddg) {
      const a = r.querySelector("a.result__a");
      if (a) push(a, r.querySelector(".result__snippet"));
    }
    return out;
  }
  for (const h of document.querySelectorAll("h2, h3")) {
    const a = h.querySelector("a[href]") || h.closest("a[href]");
    if (!a) continue;
    const box = h.closest("li, article, div");
    const snip = box ? Array.from(box.querySelectorAll("p, span, div")).find((e) => text(e).length > 40 && !e.contains(h)) : null;
    push(a, snip);
  }
  return out;
})()
