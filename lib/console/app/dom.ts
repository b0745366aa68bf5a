/**
 * The console's only rendering helper (docs/architecture.md §1): `el()` builds an element from
 * attributes, listeners and children. The page updates in place as events arrive — a delta is
 * appended to one text node, a card's state changes — so plain DOM is all it needs; no virtual
 * DOM, no framework runtime.
 */
type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  text?: string;
  hidden?: boolean;
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
  [attribute: string]: unknown;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') element.className = String(value);
    else if (key === 'text') element.textContent = String(value);
    else if (key === 'hidden') element.hidden = Boolean(value);
    else if (key === 'on') {
      for (const [type, listener] of Object.entries(value as Record<string, EventListener>)) element.addEventListener(type, listener);
    } else element.setAttribute(key, value === true ? '' : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(element: Element): void {
  element.replaceChildren();
}

/** A unique id for label/aria wiring. */
let counter = 0;
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** JSON for people: pretty when it parses, the text itself when it does not. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
