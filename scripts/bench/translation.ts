/**
 * Translation cost: folding a realistic A2A stream (text deltas, tools, usage) into AG-UI events,
 * against the bare cost of copying the same items through JSON (the least any consumer pays).
 */
import { unwrapItem } from '../../lib/core/a2a/inbound.js';
import type { WireStreamItem } from '../../lib/core/a2a/wire-types.js';
import { eventFactory } from '../../lib/core/translate/events.js';
import { RunTranslator } from '../../lib/core/translate/run-translator.js';
import { type Comparison, compare, timeMedian } from './measure.js';

function streamItems(count: number): WireStreamItem[] {
  const items: WireStreamItem[] = [];
  for (let i = 0; i < count; i += 1) {
    const iac: Record<string, unknown> = { iacCodeSessionId: 'session-1' };
    if (i % 10 === 3) iac['tool'] = { status: 'started', toolUseId: `tool-${i}`, name: 'read_file' };
    if (i % 10 === 4) iac['tool'] = { status: 'input_complete', toolUseId: `tool-${i - 1}`, name: 'read_file', toolInput: { path: `f${i}.tf`, limit: 200 } };
    if (i % 10 === 5) iac['tool'] = { status: 'completed', toolUseId: `tool-${i - 2}`, result: 'x'.repeat(200) };
    if (i % 50 === 0) iac['usage'] = { inputTokens: 100, outputTokens: 20, totalTokens: 120, provider: 'p', model: 'm' };
    const message = i % 10 < 3 ? { messageId: 'task-1-message', role: 'ROLE_AGENT', parts: [{ text: `word ${i} ` }] } : undefined;
    items.push({ statusUpdate: { taskId: 'task-1', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING', ...(message ? { message } : {}) }, metadata: { iac_code: iac } } });
  }
  return items;
}

export async function benchTranslation(): Promise<Comparison> {
  const items = streamItems(20_000);
  const translate = () => {
    let n = 0;
    const translator = new RunTranslator({
      make: eventFactory(Date.now),
      runId: 'r',
      threadId: 't',
      textDigests: [],
      pipelineSequence: 0,
      pipelineOpenSteps: [],
      textChars: 0,
      newId: () => String(++n),
    });
    let events = 0;
    for (const item of items) events += translator.apply(unwrapItem(item)).length;
    return events + translator.closeSpans().length;
  };
  const copy = () => {
    let size = 0;
    for (const item of items) size += Object.keys(JSON.parse(JSON.stringify(item)) as object).length;
    return size;
  };
  const adapter = await timeMedian(9, 2, translate);
  const baseline = await timeMedian(9, 2, copy);
  return compare('translate 20k A2A items', 'ms', adapter, baseline, 'baseline: JSON round-trip of the same items');
}
