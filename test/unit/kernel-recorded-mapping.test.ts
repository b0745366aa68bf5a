/**
 * The translator on what the real kernel sent (test/fixtures/kernel-streams; docs/protocol.md
 * §4.5, §2.4): the text of a finished task's snapshot is the answer once, not the deltas and then
 * the final repeat; a working snapshot gives its history and latest delta; FAILED and CANCELED
 * status texts are the kernel's account of the end — kept for the RUN_ERROR, never shown as the
 * assistant's words; thinking of another type than raw is ignored.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unwrapItem } from '../../lib/core/a2a/inbound.js';
import type { WireStreamItem } from '../../lib/core/a2a/wire-types.js';
import { eventFactory } from '../../lib/core/translate/events.js';
import { RunTranslator } from '../../lib/core/translate/run-translator.js';
import { textDigest } from '../../lib/core/translate/text-digests.js';

function translator(textDigests: string[] = []): RunTranslator {
  let n = 0;
  return new RunTranslator({
    make: eventFactory(() => 1),
    runId: 'run-1',
    threadId: 'thread-1',
    textDigests,
    pipelineSequence: 0,
    pipelineOpenSteps: [],
    textChars: 0,
    newId: () => `id${++n}`,
  });
}

/** The items of one stream of a recording, as the adapter's kernel client hands them over (the JSON-RPC result). */
function recorded(flow: string, label: string): WireStreamItem[] {
  const fixture = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'kernel-streams', `${flow}.json`), 'utf8')) as {
    streams: Array<{ label: string; items: string[] }>;
  };
  const stream = fixture.streams.find((candidate) => candidate.label === label);
  if (!stream) throw new Error(`no ${label} in ${flow}`);
  return stream.items.map((text) => (JSON.parse(text) as { result: WireStreamItem }).result);
}

function textOf(events: ReturnType<RunTranslator['apply']>): string {
  return events
    .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
    .map((event) => event['delta'])
    .join('');
}

/** GetTask answers with the task itself; the adapter reads it as a `task` item. */
function snapshot(flow: string, label: string): ReturnType<typeof unwrapItem> {
  const [task] = recorded(flow, label);
  return unwrapItem({ task: task as never });
}

describe('the translator on the real kernel’s recordings', () => {
  it('shows the answer of a finished task’s snapshot once: the final repeat in its history is left out', () => {
    const events = translator().apply(snapshot('text', 'snapshot'));
    expect(textOf(events)).toBe('Hello from the fake model. You said: hello there ');
  });

  it('gives a working snapshot’s history and latest delta when asked, minus what the caller already saw', () => {
    const [first] = recorded('permission-deny', 'follow');
    const item = unwrapItem(first as WireStreamItem);
    expect(item.kind).toBe('task');
    const seen = textDigest('Let me check. ');
    const events = translator([seen]).apply(item, { statusText: false, historyText: true });
    expect(textOf(events)).toMatch(/^Done: /);
    expect(textOf(events)).not.toContain('Let me check.');
    // Without the option a working snapshot says nothing (its status text is the latest delta only).
    expect(textOf(translator([seen]).apply(item, { statusText: false }))).toBe('');
  });

  it('keeps a FAILED status’s text and error id as the failure, not as text', () => {
    const t = translator();
    const events = recorded('provider-rejection', 'turn').flatMap((item) => t.apply(unwrapItem(item)));
    expect(textOf(events)).toBe('');
    expect(t.failure?.text).toMatch(/^AuthenticationError: .*401/);
    expect(t.failure?.errorId).toMatch(/^[0-9a-f]{12}$/);
  });

  it('does not show the kernel’s "Task canceled." as text', () => {
    const t = translator();
    const events = recorded('cancel', 'turn').flatMap((item) => t.apply(unwrapItem(item)));
    expect(textOf(events)).toMatch(/^part 0 part 1 $/);
    expect(t.failure).toBeUndefined();
  });

  it('ignores thinking of any other type than raw_thinking', () => {
    const item: WireStreamItem = {
      statusUpdate: { taskId: 'task-1', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' }, metadata: { iac_code: { thinking: { type: 'summary', text: 'no' } } } },
    };
    expect(translator().apply(unwrapItem(item))).toEqual([]);
  });
});
