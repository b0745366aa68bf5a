/**
 * The kernel text cursor in characters (lib/core/translate/text-cursor.ts) and the text a takeover
 * regenerates after it (lib/core/reattach/kernel-text.ts), for both ways a kernel may keep its
 * history (docs/design/reattach.md "Cursor"), and what a reader from a dead branch is sent of a
 * regenerated delta it partly holds (lib/core/journal/canonical.ts `lessHeldText`).
 */
import { describe, expect, it } from 'vitest';
import type { WireMessage } from '../../lib/core/a2a/wire-types.js';
import { lessHeldText } from '../../lib/core/journal/canonical.js';
import { textAfter } from '../../lib/core/reattach/kernel-text.js';
import type { AguiEvent } from '../../lib/core/translate/events.js';
import { agentTextMessages, KernelTextCursor } from '../../lib/core/translate/text-cursor.js';

const agent = (messageId: string, text: string): WireMessage => ({ messageId, role: 'ROLE_AGENT', parts: [{ text }] }) as unknown as WireMessage;
const deltas = ['Hel', 'lo, ', 'wor', 'ld.'];
const answer = deltas.join('');
/** iac-code and a2a-python: one history message per delta, then the final answer under another id. */
const perDelta = [...deltas.map((delta) => agent('t-message', delta)), agent('t-9', answer)];
/** A kernel that keeps one message per id, its text growing in place. */
const growing = [agent('t-message', answer), agent('t-9', answer)];

describe('the kernel text cursor', () => {
  it('counts characters, and a final answer that repeats the streamed text counts nothing', () => {
    const cursor = new KernelTextCursor();
    const fed = perDelta.map((message) => cursor.feed(message.messageId, (message.parts[0] as { text: string }).text));
    expect(fed.map((step) => step.after)).toEqual([3, 7, 10, 13, 13]);
    expect(fed.at(-1)?.repeat).toBe(true);
  });

  it('regenerates the same text after any cursor from a history kept per delta or grown in place', () => {
    for (let from = 0; from <= answer.length; from += 1) {
      for (const history of [perDelta, growing]) {
        const text = textAfter(history, from)
          .filter((item) => !item.isFinal)
          .map((item) => item.text)
          .join('');
        expect(text, `from ${from}`).toBe(answer.slice(from));
      }
    }
  });

  it('takes a status message only when the history does not hold its id yet', () => {
    expect(agentTextMessages({ history: [agent('a', 'x')], statusMessage: agent('a', 'y') }).length).toBe(1);
    expect(agentTextMessages({ history: [agent('a', 'x')], statusMessage: agent('b', 'y') }).length).toBe(2);
  });
});

describe('a reader from a dead branch', () => {
  const content = (delta: string, k: number, epoch = 3) => ({ epoch, seq: k, k, event: { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta, timestamp: 1 } as AguiEvent });
  it('gets only the part of a regenerated delta after the text it holds', () => {
    const entries = [content('Hello', 5), content(', wor', 10), content('ld.', 13)];
    const sent = lessHeldText({ epoch: 2, k: 7 }, entries).map((entry) => (entry.event as { delta: string }).delta);
    expect(sent).toEqual(['wor', 'ld.']);
    expect(lessHeldText({ epoch: 2, k: 13 }, entries)).toEqual([]);
    // Text of its own epoch or before is never trimmed.
    expect(lessHeldText({ epoch: 3, k: 13 }, entries)).toEqual(entries);
  });
});
