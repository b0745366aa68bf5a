/**
 * Token usage, summed per (provider, model) for RUN_FINISHED/RUN_ERROR `usage` (docs/protocol.md §4.10).
 * Counters may arrive as integer-valued floats (protobuf Struct, e.g. 6497.0); they are
 * recorded as integers.
 */
import type { JsonObject } from '../a2a/wire-types.js';

const COUNTERS = ['inputTokens', 'outputTokens', 'totalTokens', 'cachedInputTokens'] as const;

interface UsageEntry {
  provider?: string;
  model?: string;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedInputTokens: number;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

export class UsageLedger {
  private readonly entries = new Map<string, UsageEntry>();

  add(usage: unknown): void {
    if (typeof usage !== 'object' || usage === null) return;
    const source = usage as JsonObject;
    const provider = typeof source['provider'] === 'string' ? source['provider'] : undefined;
    const model = typeof source['model'] === 'string' ? source['model'] : undefined;
    const key = JSON.stringify([provider ?? null, model ?? null]);
    const entry = this.entries.get(key) ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0, cachedInputTokens: 0 };
    if (provider !== undefined) entry.provider = provider;
    if (model !== undefined) entry.model = model;
    for (const counter of COUNTERS) entry[counter] += count(source[counter]);
    this.entries.set(key, entry);
  }

  /** The `usage` list, or undefined when the run saw none. */
  list(): UsageEntry[] | undefined {
    return this.entries.size > 0 ? [...this.entries.values()].map((entry) => ({ ...entry })) : undefined;
  }
}
