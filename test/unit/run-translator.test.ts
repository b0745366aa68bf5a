import { describe, expect, it } from 'vitest';
import { unwrapItem } from '../../lib/core/a2a/inbound.js';
import type { WireStreamItem } from '../../lib/core/a2a/wire-types.js';
import { eventFactory } from '../../lib/core/translate/events.js';
import { RunTranslator } from '../../lib/core/translate/run-translator.js';
import { textDigest } from '../../lib/core/translate/text-digests.js';

function translator(textDigests: string[] = []) {
  let n = 0;
  return new RunTranslator({
    make: eventFactory(() => 1000.7),
    runId: 'run-1',
    threadId: 'thread-1',
    textDigests,
    pipelineSequence: 0,
    pipelineOpenSteps: [],
    textChars: 0,
    newId: () => `id${++n}`,
  });
}

function status(text: string | undefined, iac: Record<string, unknown> = {}, messageId = 'task-1-message', state = 'TASK_STATE_WORKING'): WireStreamItem {
  return {
    statusUpdate: {
      taskId: 'task-1',
      contextId: 'ctx',
      status: { state, ...(text === undefined ? {} : { message: { messageId, role: 'ROLE_AGENT', parts: [{ text }] } }) },
      metadata: { iac_code: iac },
    },
  };
}

const deltas = (events: ReturnType<RunTranslator['apply']>) => events.filter((event) => event.type === 'TEXT_MESSAGE_CONTENT').map((event) => event['delta']);

describe('RunTranslator', () => {
  it('stamps integer timestamps and normalises task states', () => {
    const events = translator().apply(unwrapItem(status('hi')));
    expect(events.every((event) => event.timestamp === 1000)).toBe(true);
    expect(unwrapItem(status(undefined, {}, 'x', 'TASK_STATE_INPUT_REQUIRED')).state).toBe('input-required');
  });

  it('suppresses the final assistant text when text was already streamed, and emits it when not', () => {
    const t = translator();
    t.apply(unwrapItem(status('Hello')));
    expect(t.apply(unwrapItem(status('Hello', { assistantFinal: { complete: true } }, 'task-1-2')))).toEqual([]);
    const fresh = translator();
    expect(deltas(fresh.apply(unwrapItem(status('Whole answer', { assistantFinal: { complete: true } }, 'task-1-2'))))).toEqual(['Whole answer']);
  });

  it('takes a long final answer cut into pieces under its id (docs/protocol.md §7.1): every piece when it counts, none when text was streamed', () => {
    const final = { assistantFinal: { complete: true } };
    const fresh = translator();
    const shown = ['one ', 'two ', 'three'].flatMap((piece) => deltas(fresh.apply(unwrapItem(status(piece, final, 'task-1-2')))));
    expect(shown).toEqual(['one ', 'two ', 'three']);
    const streamed = translator();
    streamed.apply(unwrapItem(status('one two three')));
    expect(['one ', 'two ', 'three'].flatMap((piece) => streamed.apply(unwrapItem(status(piece, final, 'task-1-2'))))).toEqual([]);
  });

  it('drops the already-seen prefix of a message on a later run (cumulative status texts)', () => {
    const run1 = translator();
    run1.apply(unwrapItem(status('first', {}, 'm')));
    run1.closeSpans();
    const run2 = translator(run1.durableState().textDigests);
    expect(deltas(run2.apply(unwrapItem(status('firstsecond', {}, 'm'))))).toEqual(['second']);
    run2.closeSpans();
    const run3 = translator(run2.durableState().textDigests);
    expect(deltas(run3.apply(unwrapItem(status('firstsecondthird', {}, 'm'))))).toEqual(['third']);
    const replay = translator([textDigest('exact 会话')]);
    expect(replay.apply(unwrapItem(status('exact 会话', { assistantFinal: { complete: true } }, 'f')))).toEqual([]);
    expect(deltas(replay.apply(unwrapItem(status(' after resume', {}, 'f'))))).toEqual([' after resume']);
    expect(deltas(translator([textDigest('other')]).apply(unwrapItem(status('unrelated text', {}, 'g'))))).toEqual(['unrelated text']);
  });

  it('ends the previous text message when a different message id starts', () => {
    const t = translator();
    const all = [...t.apply(unwrapItem(status('a', {}, 'm1'))), ...t.apply(unwrapItem(status('b', {}, 'm2')))];
    expect(all.map((event) => event.type)).toEqual(['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT']);
  });

  it('records integer-valued float usage as integers summed per provider and model', () => {
    const t = translator();
    t.apply(unwrapItem(status(undefined, { usage: { inputTokens: 6497.0, outputTokens: 10.0, totalTokens: 6507.0, provider: 'p', model: 'm' } })));
    t.apply(unwrapItem(status(undefined, { usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4, provider: 'p', model: 'm' } })));
    t.apply(unwrapItem(status(undefined, { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } })));
    expect(t.usage.list()).toEqual([
      { provider: 'p', model: 'm', inputTokens: 6500, outputTokens: 11, totalTokens: 6511, cachedInputTokens: 0 },
      { inputTokens: 1, outputTokens: 1, totalTokens: 2, cachedInputTokens: 0 },
    ]);
  });

  it('names reasoning after the open text message, else the run, and closes it before text', () => {
    const t = translator();
    const first = t.apply(unwrapItem(status(undefined, { thinking: { type: 'raw_thinking', text: 'hmm' } })));
    expect(first[0]).toMatchObject({ type: 'REASONING_START', messageId: 'reasoning-run-1' });
    const text = t.apply(unwrapItem(status('answer', {}, 'm1')));
    expect(text.map((event) => event.type)).toEqual(['REASONING_MESSAGE_END', 'REASONING_END', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT']);
    expect(t.apply(unwrapItem(status(undefined, { thinking: { type: 'raw_thinking', text: 'more' } })))[0]).toMatchObject({ messageId: 'reasoning-m1' });
  });

  it('closes reasoning, tools and text in that order, once', () => {
    const t = translator();
    t.apply(unwrapItem(status('text', {}, 'm1')));
    t.apply(unwrapItem(status(undefined, { tool: { status: 'started', toolUseId: 'tool-a', name: 'x' } })));
    t.apply(unwrapItem(status(undefined, { thinking: { type: 'raw_thinking', text: 'r' } })));
    expect(t.closeSpans().map((event) => event.type)).toEqual(['REASONING_MESSAGE_END', 'REASONING_END', 'TOOL_CALL_END', 'TEXT_MESSAGE_END']);
    expect(t.closeSpans()).toEqual([]);
  });

  it('gives a tool without id or name generated ones and ignores input_delta', () => {
    const t = translator();
    const started = t.apply(unwrapItem(status(undefined, { tool: { status: 'started' } })));
    expect(started[0]).toMatchObject({ type: 'TOOL_CALL_START', toolCallId: 'tool-id1', toolCallName: 'tool' });
    expect(t.apply(unwrapItem(status(undefined, { tool: { status: 'input_delta', toolUseId: 'tool-id1' } })))).toEqual([]);
  });

  it('emits one TOOL_CALL_RESULT per tool even when the result repeats', () => {
    const t = translator();
    const done = { tool: { status: 'completed', toolUseId: 'x', result: { b: 1, a: [2] } } };
    const first = t.apply(unwrapItem(status(undefined, done)));
    expect(first).toEqual([expect.objectContaining({ type: 'TOOL_CALL_RESULT', content: '{"a":[2],"b":1}' })]);
    expect(t.apply(unwrapItem(status(undefined, done)))).toEqual([]);
  });

  it('reads trailing agent history from a task without status text', () => {
    const t = translator();
    const task: WireStreamItem = {
      task: {
        id: 'task-1',
        status: { state: 'TASK_STATE_INPUT_REQUIRED' },
        history: [
          { messageId: 'u', role: 'ROLE_USER', parts: [{ text: 'q' }] },
          { messageId: 'a1', role: 'ROLE_AGENT', parts: [{ text: 'one ' }] },
          { messageId: 'a2', role: 'ROLE_AGENT', parts: [{ text: 'two' }] },
        ],
      },
    };
    expect(deltas(t.apply(unwrapItem(task)))).toEqual(['one two']);
  });

  describe('a followed subscription (docs/protocol.md §5.6)', () => {
    // What the real kernel sent a resumed run after a write_file permission was allowed (recorded
    // from test/kernel/permissions.test.ts when it failed): a2a-sdk 1.1.0 tapped the task's events,
    // then read the snapshot, so the delta "the " saved in between came in both.
    const message = (text: string, messageId = 'task-1-message') => ({ messageId, role: 'ROLE_AGENT', parts: [{ text }] });
    const snapshot = (latest: string, history: string[]) =>
      unwrapItem({
        task: { id: 'task-1', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING', message: message(latest) }, history: history.map((text) => message(text)) },
      } as WireStreamItem);
    const followed = { statusText: false, historyText: true };

    it('shows the snapshot’s latest delta once when the subscription sends it again as its first text', () => {
      const t = translator([textDigest('Let me check. ')]);
      const shown = [
        ...deltas(t.apply(snapshot('the ', ['Let ', 'me ', 'check. ', 'Done: ']), followed)),
        ...['the ', 'tool ', 'answered. '].flatMap((text) => deltas(t.apply(unwrapItem(status(text))))),
        ...deltas(t.apply(unwrapItem(status('Done: the tool answered. ', { assistantFinal: { complete: true } }, 'task-1-2')))),
      ];
      expect(shown.join('')).toBe('Done: the tool answered. ');
      // The snapshot's history holds every delta but its latest, which the repeat counts.
      expect(t.textCursor).toBe('Let me check. Done: the tool answered. '.length);
    });

    it('shows a first streamed delta that differs from the snapshot’s latest, and a later equal one', () => {
      const t = translator([textDigest('Let me check. ')]);
      const shown = [
        ...deltas(t.apply(snapshot('the ', ['Let ', 'me ', 'check. ', 'Done: ']), followed)),
        ...['tool ', 'the ', 'answered. '].flatMap((text) => deltas(t.apply(unwrapItem(status(text))))),
      ];
      expect(shown.join('')).toBe('Done: the tool the answered. ');
    });

    it('leaves a live stream’s repeated delta alone', () => {
      const t = translator();
      expect(['the ', 'the '].flatMap((text) => deltas(t.apply(unwrapItem(status(text)))))).toEqual(['the ', 'the ']);
    });
  });
});
