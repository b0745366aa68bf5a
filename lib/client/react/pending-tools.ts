/**
 * The tool calls a pending interrupt names, shared between the interrupt renderer (which marks its
 * interrupt's `toolCallId` while it is shown) and the tool renderer (which shows that tool as
 * waiting): CopilotKit gives each renderer only its own props. A module-level store read with
 * `useSyncExternalStore`; counted, so React's StrictMode double mount leaves it right.
 */
import { useSyncExternalStore } from 'react';

const pending = new Map<string, number>();
const listeners = new Set<() => void>();
let version = 0;

function changed(): void {
  version += 1;
  for (const listener of listeners) listener();
}

/** Marks `toolCallId` as waiting on an interrupt; the returned function unmarks it. */
export function markWaiting(toolCallId: string): () => void {
  pending.set(toolCallId, (pending.get(toolCallId) ?? 0) + 1);
  changed();
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const count = (pending.get(toolCallId) ?? 1) - 1;
    if (count <= 0) pending.delete(toolCallId);
    else pending.set(toolCallId, count);
    changed();
  };
}

export function isWaiting(toolCallId: string): boolean {
  return pending.has(toolCallId);
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether a pending interrupt names `toolCallId`; re-renders when that changes. */
export function useToolWaiting(toolCallId: string): boolean {
  useSyncExternalStore(
    subscribe,
    () => version,
    () => version,
  );
  return isWaiting(toolCallId);
}
