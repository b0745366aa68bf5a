/**
 * Assistant text as Markdown (docs/architecture.md §4.7), made safe twice: `marked` renders it with
 * every piece of raw HTML in the text escaped (a model's `<img onerror>` is shown as text, never
 * parsed), and DOMPurify then keeps only the tags and attributes Markdown itself produces, links
 * only to http(s) and mailto addresses, and no images (the page's content security policy would
 * refuse a remote one anyway). What reaches the DOM is a sanitised fragment, never an HTML string.
 */
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);

const markdown = new Marked({
  gfm: true,
  async: false,
  renderer: {
    // Raw HTML in the model's text is text.
    html: ({ text }) => escapeHtml(text),
    // An image becomes a link to it: nothing is fetched from an address the model chose.
    image: ({ href, text }) => `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`,
  },
});

const ALLOWED_TAGS = ['a', 'p', 'br', 'hr', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
const TABLE_TAGS = ['table', 'thead', 'tbody', 'tr', 'th', 'td'];
const purifier = DOMPurify(window);
purifier.addHook('uponSanitizeAttribute', (node, data) => {
  // A class survives only as a code block's language (`language-yaml`), which the copy bar names.
  if (data.attrName === 'class' && !(node.nodeName === 'CODE' && /^language-[\w+-]+$/.test(data.attrValue))) data.keepAttr = false;
});
purifier.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
});

/** The Markdown source as a sanitised fragment, ready to be put in the page. */
export function renderMarkdown(source: string): DocumentFragment {
  const html = markdown.parse(source) as string;
  const fragment = purifier.sanitize(html, {
    ALLOWED_TAGS: [...ALLOWED_TAGS, ...TABLE_TAGS],
    ALLOWED_ATTR: ['href', 'title', 'class', 'start', 'align'],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
    RETURN_DOM_FRAGMENT: true,
  });
  // The line breaks marked leaves between blocks are not content.
  for (const node of [...fragment.childNodes]) if (node.nodeType === Node.TEXT_NODE && !node.textContent?.trim()) node.remove();
  return fragment;
}
