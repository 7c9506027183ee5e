// Small DOM helpers. Styles come only from styles.css or CSSOM properties,
// because the server's CSP forbids inline style attributes.

type Child = Node | string | number | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else node.setAttribute(k, v);
  }
  append(node, ...children);
  return node;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

const SVG_NS = 'http://www.w3.org/2000/svg';
export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: Child[]): SVGElement {
  const node = document.createElementNS(SVG_NS, tag) as SVGElement;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  append(node, ...children);
  return node;
}

export function clear(node: Element): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}

// Converter texts carry a little HTML (links, bold, line breaks). Rebuild it
// from a whitelist so nothing else (scripts, styles, images that would fetch)
// reaches the page; links open outside and only on a click.
const ALLOWED_TAGS = new Set(['A', 'B', 'I', 'U', 'BR', 'P', 'DIV', 'SPAN', 'UL', 'OL', 'LI', 'CODE', 'STRONG', 'EM']);
export function safeHtml(html: string): DocumentFragment {
  // Style attributes go before parsing: even an inert parse reports them as CSP violations.
  const unstyled = html.replace(/\sstyle\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi, '');
  const parsed = new DOMParser().parseFromString(`<body>${unstyled}</body>`, 'text/html');
  const out = document.createDocumentFragment();
  const copy = (from: Node, to: Node) => {
    for (const child of Array.from(from.childNodes)) {
      if (child.nodeType === Node.TEXT_NODE) {
        to.appendChild(document.createTextNode(child.textContent ?? ''));
      } else if (child.nodeType === Node.ELEMENT_NODE) {
        const e = child as Element;
        if (!ALLOWED_TAGS.has(e.tagName)) { copy(e, to); continue; }
        const made = document.createElement(e.tagName.toLowerCase());
        if (e.tagName === 'A') {
          const href = e.getAttribute('href') ?? '';
          if (/^(https?:|mailto:)/i.test(href)) {
            made.setAttribute('href', href);
            made.setAttribute('target', '_blank');
            made.setAttribute('rel', 'noopener noreferrer');
          }
        }
        copy(e, made);
        to.appendChild(made);
      }
    }
  };
  copy(parsed.body, out);
  return out;
}

export function section(title: string, ...children: Child[]): HTMLElement {
  return el('section', { class: 'card' }, el('h2', {}, title), ...children);
}

export function message(kind: 'error' | 'empty' | 'info', text: string): HTMLElement {
  return el('div', { class: `msg msg-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}
