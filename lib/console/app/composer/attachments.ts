/**
 * Images attached to the next message: read as base64 when added (after the limit checks of
 * image-limits.ts), shown as removable thumbnails, and turned into AG-UI image parts with inline
 * data (docs/protocol.md §3).
 */
import type { InputContent } from '@ag-ui/client';
import { el } from '../dom.js';
import { type ImageFacts, imageProblem } from './image-limits.js';

interface Attached extends ImageFacts {
  base64: string;
  preview: string;
}

function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error('could not read the file'));
    reader.readAsDataURL(file);
  });
}

export class Attachments {
  readonly root: HTMLElement;
  private items: Attached[] = [];

  constructor(private readonly report: (problem: string | undefined) => void) {
    this.root = el('ul', { class: 'attachments', 'aria-label': 'Attached images' });
  }

  get facts(): readonly ImageFacts[] {
    return this.items;
  }

  async add(files: Iterable<File>): Promise<void> {
    const problems: string[] = [];
    for (const file of files) {
      const facts = { name: file.name, type: file.type, size: file.size };
      const problem = imageProblem(facts, this.items);
      if (problem) {
        problems.push(problem);
        continue;
      }
      try {
        this.items.push({ ...facts, base64: await readBase64(file), preview: URL.createObjectURL(file) });
      } catch {
        problems.push(`${file.name} could not be read.`);
      }
    }
    this.render();
    this.report(problems.length > 0 ? problems.join(' ') : undefined);
  }

  /** The image parts of the message, in the order attached. */
  parts(): InputContent[] {
    return this.items.map((item) => ({ type: 'image', source: { type: 'data', value: item.base64, mimeType: item.type }, metadata: { filename: item.name } }));
  }

  /** Thumbnails for the transcript's copy of the message. */
  previews(): HTMLElement[] {
    return this.items.map((item) => el('img', { src: item.preview, alt: item.name, class: 'thumb' }));
  }

  clear(): void {
    this.items = [];
    this.render();
  }

  private render(): void {
    this.root.replaceChildren(
      ...this.items.map((item, index) =>
        el(
          'li',
          {},
          el('img', { src: item.preview, alt: '', class: 'thumb' }),
          el('span', { text: item.name }),
          el('button', {
            type: 'button',
            class: 'link',
            'aria-label': `Remove ${item.name}`,
            text: 'Remove',
            on: {
              click: () => {
                this.items.splice(index, 1);
                this.render();
                this.report(undefined);
              },
            },
          }),
        ),
      ),
    );
  }
}
