/**
 * A kernel event that is one long agent text is cut into events the A2A SDK can parse
 * (lib/adapters/a2a-kernel/sse-text-split.ts, docs/protocol.md §7.1): each under its 4 MiB, each the
 * same update with a slice of the text, the slices adding up to the text exactly — however the
 * chunks cut the event, whatever the text holds (escapes, multi-byte characters, surrogate pairs
 * raw or escaped as Python's json.dumps writes them), with LF or CRLF line ends.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trimmedSseBody } from '../../lib/adapters/a2a-kernel/sse-history-trim.js';
import { SPLIT_TEXT_ABOVE_BYTES, SPLIT_TEXT_BYTES, splitLongText } from '../../lib/adapters/a2a-kernel/sse-text-split.js';

const SDK_LIMIT = 4 * 1024 * 1024;
const encoder = new TextEncoder();

/** The kernel's final status (iac-code's key order: metadata after the status) carrying `text`. */
function finalEvent(text: string, options: { escapeNonAscii?: boolean; crlf?: boolean; role?: string; parts?: unknown[] } = {}): string {
  const update = {
    result: {
      statusUpdate: {
        taskId: 'task-1',
        contextId: 'ctx-1',
        status: {
          state: 'TASK_STATE_WORKING',
          message: { messageId: 'task-1-2', role: options.role ?? 'ROLE_AGENT', parts: options.parts ?? [{ text }] },
          timestamp: '2026-01-01T00:00:00Z',
        },
        metadata: { iac_code: { assistantFinal: { complete: true }, iacCodeSessionId: 'session-1' } },
      },
    },
    id: 1,
    jsonrpc: '2.0',
  };
  let json = JSON.stringify(update);
  // Python's json.dumps (ensure_ascii): every non-ASCII character as \uXXXX, a pair for an astral one.
  if (options.escapeNonAscii) json = json.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const end = options.crlf ? '\r\n' : '\n';
  return `data: ${json}${end}${end}`;
}

/** `bytes` cut at `cuts` (offsets, any order, duplicates allowed). */
function chunked(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  return [0, ...at].map((start, index) => bytes.subarray(start, at[index] ?? bytes.length)).filter((chunk) => chunk.length > 0);
}

/** A status update as the SDK would parse it (what these tests look at). */
interface UpdateEvent {
  id?: unknown;
  result: {
    statusUpdate: {
      taskId: string;
      contextId: string;
      status: { message: { messageId: string; role: string; parts: Array<{ text: string }> } };
      metadata: unknown;
    };
  };
}

const textIn = (event: UpdateEvent): string => event.result.statusUpdate.status.message.parts[0]?.text ?? '';

/** The trimmed stream of `chunks`, as the SDK reads it: its events' data, each checked against the SDK's limit. */
async function eventsThrough(chunks: Uint8Array[]): Promise<UpdateEvent[]> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const text = await new Response(trimmedSseBody(source.getReader())).text();
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.length > 0)
    .map((block) => {
      expect(block.length).toBeLessThan(SDK_LIMIT);
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      return JSON.parse(data) as UpdateEvent;
    });
}

/** No lone surrogate: a cut between the two halves of a pair would leave one on each side. */
const wellFormed = (text: string): boolean => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

const textOf = (events: UpdateEvent[]): string => events.map((event) => textIn(event)).join('');

/** A long text of `bytes` UTF-8 bytes or so, made of `unit` repeated. */
function longText(unit: string, bytes: number): string {
  return unit.repeat(Math.ceil(bytes / encoder.encode(unit).length));
}

describe('a long agent text in one event', () => {
  it('becomes events of about 1 MiB of text, the same update each, adding up to the text', async () => {
    const text = longText('A long answer: é 中文 😀 "quoted" \\ back\\slash.\n\u0001 ', 9 * 1024 * 1024);
    const event = encoder.encode(finalEvent(text));
    const events = await eventsThrough(chunked(event, [65_536, 131_072, 5_000_000]));
    expect(events.length).toBeGreaterThanOrEqual(9);
    expect(textOf(events) === text).toBe(true);
    for (const each of events) {
      const { status, metadata, ...rest } = each.result.statusUpdate;
      expect(rest).toEqual({ taskId: 'task-1', contextId: 'ctx-1' });
      expect(metadata).toEqual({ iac_code: { assistantFinal: { complete: true }, iacCodeSessionId: 'session-1' } });
      expect(status.message).toMatchObject({ messageId: 'task-1-2', role: 'ROLE_AGENT' });
      expect(status.message.parts).toHaveLength(1);
      expect(textIn(each)).toSatisfy(wellFormed);
      expect(encoder.encode(textIn(each)).length).toBeLessThanOrEqual(SPLIT_TEXT_BYTES + 8);
      expect(each['id']).toBe(1);
    }
  });

  it('cuts neither an escape, a UTF-8 character nor a surrogate pair, however the chunks fall, raw or escaped, LF or CRLF', async () => {
    const units = ['😀😀😀', 'é中😀\\"', '\\\\\\"\n', 'ab\u0001cd', '中'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...units), fc.boolean(), fc.boolean(), fc.array(fc.nat(), { maxLength: 8 }), async (unit, escapeNonAscii, crlf, cuts) => {
        const text = longText(unit, SPLIT_TEXT_ABOVE_BYTES + 1_500_000);
        const events = await eventsThrough(chunked(encoder.encode(finalEvent(text, { escapeNonAscii, crlf })), cuts));
        expect(events.length).toBeGreaterThan(1);
        for (const event of events) expect(textIn(event)).toSatisfy(wellFormed);
        expect(textOf(events) === text).toBe(true);
      }),
      { numRuns: 12 },
    );
  });

  it('leaves alone what is not one long agent text: a user message, several parts, a short text, a bulk spread over many strings', () => {
    const big = longText('x', SPLIT_TEXT_ABOVE_BYTES + 10);
    const one = (text: string) => [encoder.encode(text)];
    const size = (text: string) => encoder.encode(text).length;
    for (const event of [
      finalEvent(big, { role: 'ROLE_USER' }),
      finalEvent('', { parts: [{ text: big }, { text: 'more' }] }),
      finalEvent('short'),
      finalEvent('', { parts: Array.from({ length: 40 }, () => ({ text: big.slice(0, 100_000) })) }),
    ]) {
      expect(splitLongText(one(event), size(event))).toBeUndefined();
    }
    const split = splitLongText(one(finalEvent(big)), size(finalEvent(big)));
    expect(split).toBeDefined();
  });
});
