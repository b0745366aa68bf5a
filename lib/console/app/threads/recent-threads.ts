/**
 * Recent threads in local storage (docs/architecture.md §4.7): ids and settings only — no token, no message text, no
 * answer — so nothing secret outlives the tab. Newest first, at most MAX_THREADS.
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
    typeof item.createdAt === 'number'
  );
}

export function listThreads(): ThreadSettings[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter(isSettings) : [];
  } catch {
    return [];
  }
}

/** Saves (or moves to the top) a thread's settings, keeping only the allow-listed fields. */
export function rememberThread(settings: ThreadSettings): void {
  const { threadId, cwd, rosInvocationId, runMode, language, createdAt, started } = settings;
  const entry: ThreadSettings = { threadId, cwd, rosInvocationId, runMode, language, createdAt, started };
  const rest = listThreads().filter((item) => item.threadId !== threadId);
  localStorage.setItem(KEY, JSON.stringify([entry, ...rest].slice(0, MAX_THREADS)));
}

export function findThread(threadId: string): ThreadSettings | undefined {
  return listThreads().find((item) => item.threadId === threadId);
}
