// Draws the page's Mermaid diagrams one by one (Mermaid queues renders),
// each <pre class="mermaid"> replaced by its SVG in a <figure>; a diagram
// that fails shows its source and the error instead, never a blank.
// Returns {total, failures: [{index, error}]}.
//
// Mermaid draws every .mermaid element on load unless told not to: it is
// told here, as this script runs (right after Mermaid's, before load).
if (typeof mermaid !== "undefined") {
  mermaid.initialize({
    startOnLoad: false, securityLevel: "strict", suppressErrorRendering: true,
    deterministicIds: true, theme: "default", htmlLabels: false,
    flowchart: { htmlLabels: false }, class: { htmlLabels: false },
  });
}
window.__batonRender = async () => {
  const nodes = Array.from(document.querySelectorAll("pre.mermaid"));
  const failures = [];
  const fail = (el, i, source, error) => {
    failures.push({ index: i, error });
    const box = document.createElement("div");
    box.className = "diagram-error";
    const p = document.createElement("p");
    p.textContent = "This diagram could not be drawn: " + error;
    const pre = document.createElement("pre");
    pre.textContent = source;
    box.append(p, pre);
    el.replaceWith(box);
  };
  if (nodes.length && typeof mermaid === "undefined") {
    nodes.forEach((el, i) => fail(el, i, el.textContent, "Mermaid is not bundled in this build of Baton"));
    return { total: nodes.length, failures };
  }
  for (let i = 0; i < nodes.length; i++) {
    const el = nodes[i];
    const source = el.textContent;
    try {
      const { svg } = await mermaid.render("diagram-" + i, source);
      const fig = document.createElement("figure");
      fig.className = "diagram";
      fig.innerHTML = svg;
      el.replaceWith(fig);
    } catch (e) {
      const text = String((e && (e.message || e.str)) || e);
      const lines = text.split("\n").map((l) => l.trim()).filter((l) => l && !/^-*\^$/.test(l));
      const one = lines.join(" ").replace(/\s+/g, " ");
      fail(el, i, source, one.length > 240 ? one.slice(0, 239) + "…" : one);
    }
  }
  document.querySelectorAll("[id^='ddiagram-'], [id^='idiagram-']").forEach((n) => n.remove());
  await document.fonts.ready;
  return { total: nodes.length, failures };
};
