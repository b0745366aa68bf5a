/**
 * The conversation's own scrolling (docs/architecture.md §4.7): while the person is at the bottom
 * the region follows new output; once they scroll up it stays where they are, and "Jump to latest"
 * brings them back (and following with it).
 */
import { el } from '../dom.js';

/** Within this many pixels of the bottom counts as at the bottom. */
const AT_BOTTOM_PX = 40;

export class FollowScroll {
  readonly jump: HTMLButtonElement;
  private following = true;
  /** At the top on purpose (a new thread's introduction): nothing to jump to until the person scrolls. */
  private resting = false;

  constructor(
    private readonly region: HTMLElement,
    content: HTMLElement,
  ) {
    this.jump = el('button', { type: 'button', class: 'jump-latest', hidden: true, text: 'Jump to latest ↓', on: { click: () => this.toBottom() } });
    region.addEventListener('scroll', () => {
      if (region.scrollTop > 0) this.resting = false;
      this.following = this.atBottom();
      if (this.following) this.jump.hidden = true;
    });
    const keep = () => this.keep();
    new MutationObserver(keep).observe(content, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ['hidden', 'open'] });
    new ResizeObserver(keep).observe(region);
  }

  /** The top of the region, where an introduction starts; sending a message follows the output again. */
  toTop(): void {
    this.following = false;
    this.resting = true;
    this.jump.hidden = true;
    this.region.scrollTop = 0;
  }

  /** Back to the newest output, following it again. */
  toBottom(): void {
    this.following = true;
    this.resting = false;
    this.jump.hidden = true;
    this.region.scrollTop = this.region.scrollHeight;
  }

  private atBottom(): boolean {
    return this.region.scrollHeight - this.region.scrollTop - this.region.clientHeight <= AT_BOTTOM_PX;
  }

  private keep(): void {
    if (this.following) this.region.scrollTop = this.region.scrollHeight;
    else if (!this.resting && !this.atBottom()) this.jump.hidden = false;
  }
}
