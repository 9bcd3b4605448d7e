// DOM builders. Document text and metadata are untrusted: they only ever become text nodes
// (textContent, createTextNode), never HTML.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// The text with its literal spans wrapped in <mark>, every piece a text node.
export function highlighted(text, spans) {
  const out = el("span");
  let at = 0;
  for (const s of [...(spans || [])].sort((a, b) => a.start - b.start)) {
    if (s.start < at || s.end > text.length) continue;
    out.append(document.createTextNode(text.slice(at, s.start)));
    out.append(el("mark", { text: text.slice(s.start, s.end) }));
    at = s.end;
  }
  out.append(document.createTextNode(text.slice(at)));
  return out;
}

export function fmt(x, digits = 3) {
  return x === null || x === undefined ? "—" : Number(x).toFixed(digits);
}

export function clear(node) { node.replaceChildren(); return node; }
