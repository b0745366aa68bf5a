/**
 * How an emulator flow is compared with the real kernel's recording (docs/architecture.md §9.7),
 * stream by stream, by shape (stream-shape.ts). Three rules, each for a reason the recordings show:
 *
 * - A turn is compared up to its first item that stops the adapter's reading — an INPUT_REQUIRED or
 *   terminal status, or a required input (docs/protocol.md §7.4). @a2a-js/sdk, which the emulator
 *   is built on, ends a stream there, where the kernel's stream goes on until its executor returns
 *   (after FAILED: usage, assistantFinal, INPUT_REQUIRED). What the kernel does after that point is
 *   compared through the GetTask answers that follow.
 * - After a permission answer, where the kernel's work lands — on the answer's stream, in GetTask's
 *   snapshot, on the subscription, or nowhere — depends on timing; on the turn's own stream kept
 *   open (`parked`) it all lands, in order. The answer stream is compared as it is, and the
 *   continuation as one sequence of signals (each item's state, status message and metadata,
 *   whatever call carried it, equal neighbours collapsed): the kernel's parked stream against what
 *   the emulator's follower reads (answer, follow-snapshot, follow), since @a2a-js/sdk cannot keep
 *   the parked stream open.
 * - The emulator adds keys the recorded kernel does not send, each on purpose (EMULATOR_ONLY_KEYS);
 *   they are removed before comparing.
 */
import type { RawStream } from '../../scripts/real-kernel/raw-a2a.js';
import { itemShape, streamShape } from './stream-shape.js';

/** Keys only the emulator sends, and why. */
export const EMULATOR_ONLY_KEYS: Readonly<Record<string, string>> = {
  kernelTrace: 'a key a later kernel may add to an input: it must never reach the caller (docs/protocol.md §5.1)',
};

const TURNS = new Set(['turn', 'second-turn']);
const CONTINUATION = ['answer', 'follow-snapshot', 'follow'];
const STOPS = /^(task|statusUpdate) (INPUT_REQUIRED|COMPLETED|FAILED|CANCELED|REJECTED|AUTH_REQUIRED)\b|input:\{/;

function withoutEmulatorKeys(text: string): string {
  let out = text;
  for (const key of Object.keys(EMULATOR_ONLY_KEYS)) out = out.replace(new RegExp(`"${key}":"(?:[^"\\\\]|\\\\.)*",?`, 'g'), '').replace(/,}/g, '}');
  return out;
}

function untilStop(lines: string[]): string[] {
  const stop = lines.findIndex((line) => STOPS.test(line));
  return stop < 0 ? lines : lines.slice(0, stop + 1);
}

/** An item as a signal: its state, status message and metadata — not whether a task or an update carried it, nor its history. */
function signal(text: string): string {
  return itemShape(text)
    .replace(/^(task|statusUpdate) /, '')
    .replace(/ history\[.*\]$/, '');
}

function collapse(lines: string[]): string[] {
  return lines.filter((line, index) => line !== lines[index - 1]);
}

export interface ShapedFlow {
  /** Label → shape lines, per the rules above. */
  streams: Record<string, string[]>;
}

export function shapeFlow(streams: readonly RawStream[], emulator: boolean): ShapedFlow {
  const clean = (items: string[]) => (emulator ? items.map(withoutEmulatorKeys) : items);
  const shaped: Record<string, string[]> = {};
  for (const stream of streams) {
    if (stream.label === 'follow-snapshot' || stream.label === 'follow' || stream.label === 'parked') continue;
    const lines = streamShape(clean(stream.items));
    shaped[stream.label] = TURNS.has(stream.label) ? untilStop(lines) : lines;
  }
  const parked = streams.find((stream) => stream.label === 'parked')?.items ?? [];
  const continuation = parked.length > 0 ? parked : CONTINUATION.flatMap((label) => streams.find((stream) => stream.label === label)?.items ?? []);
  if (continuation.length > 0) shaped['continuation'] = collapse(clean(continuation).map(signal));
  return { streams: shaped };
}
