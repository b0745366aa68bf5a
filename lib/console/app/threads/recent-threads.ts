/**
 * Recent threads in local storage (docs/architecture.md §4.7): ids, settings, a title (the first
 * words of the first message, or the person's own name for it) and the ids another tab needs to
 * follow the thread's execution — no token, no answer, no transcript. Newest first, at most
 * MAX_THREADS. Removing a thread here forgets it in this browser only: the adapter keeps it.
 */
import { LANGUAGES, type ThreadSettings } from './thread-settings.js';

const KEY = 'iac-code-console.threads';
const MAX_THREADS = 30;

function isSettings(value: unknown): value is ThreadSettings {
  const item = value as Partial<ThreadSettings> | null;
  return (
    typeof item === 'object' &&
    item !== null &&
    typeof item.threadId === 'string' &&
    typeof item.cwd === 'string' &&
    typeof item.rosInvocationId === 'string' &&
    (item.runMode === 'normal' || item.runMode === 'pipeline') &&
    (item.language === '' || (LANGUAGES as readonly string[]).includes(String(item.language))) &&
    typeof item.createdAt === 'number' &&
    optionalString(item.title) &&
    optionalString(item.executionId) &&
    optionalString(item.lastRunId) &&
    (item.activity === undefined || item.activity === 'running' || item.activity === 'waiting' || item.activity === 'idle')
  );
}

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

export function listThreads(): ThreadSettings[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter(isSettings) : [];
  } catch {
    return [];
  }
}

/** Saves (or moves to the top) a thread's settings, keeping only the allow-listed fields; `inPlace` keeps a listed thread where it is (a rename). */
export function rememberThread(settings: ThreadSettings, inPlace = false): void {
  const { threadId, cwd, rosInvocationId, runMode, language, createdAt, started, title, executionId, lastRunId, activity } = settings;
  const entry: ThreadSettings = { threadId, cwd, rosInvocationId, runMode, language, createdAt, started, title, executionId, lastRunId, activity };
  const threads = listThreads();
  const at = threads.findIndex((item) => item.threadId === threadId);
  if (inPlace && at >= 0) threads[at] = entry;
  else {
    if (at >= 0) threads.splice(at, 1);
    threads.unshift(entry);
  }
  localStorage.setItem(KEY, JSON.stringify(threads.slice(0, MAX_THREADS)));
}

export function findThread(threadId: string): ThreadSettings | undefined {
  return listThreads().find((item) => item.threadId === threadId);
}

export function forgetThread(threadId: string): void {
  localStorage.setItem(KEY, JSON.stringify(listThreads().filter((item) => item.threadId !== threadId)));
}
