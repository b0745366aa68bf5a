/**
 * A thread as the console knows it (docs/protocol.md §3, §6): its id and the `iacCode` essentials.
 * `cwd` binds the thread on its first run; `rosInvocationId` names the execution and is kept by
 * its resumes; run mode and language may change from one turn to the next.
 */
export const LANGUAGES = ['en', 'zh', 'es', 'fr', 'de', 'ja', 'pt'] as const;
export type Language = (typeof LANGUAGES)[number];
export type RunMode = 'normal' | 'pipeline';

export interface ThreadSettings {
  threadId: string;
  cwd: string;
  rosInvocationId: string;
  runMode: RunMode;
  /** '' = let the adapter use the browser's Accept-Language. */
  language: Language | '';
  createdAt: number;
  /** True once a run was sent: cwd is then bound. */
  started: boolean;
  /** A name for the list: the first message's first words, or what the person typed to rename it. */
  title?: string;
  /**
   * What this browser last knew of the thread's execution — its id, a run admitted on the thread
   * and whether it was running, waiting for an answer or idle — so that another tab can subscribe
   * to it (docs/protocol.md §6.14). Ids only.
   */
  executionId?: string;
  lastRunId?: string;
  activity?: ThreadActivity;
}

export type ThreadActivity = 'running' | 'waiting' | 'idle';

const TITLE_CHARS = 60;

/** A title from a message: its first line, cut at a word near TITLE_CHARS. */
export function titleFrom(text: string): string {
  const line = text.trim().split(/\r?\n/)[0]?.trim() ?? '';
  if (line.length <= TITLE_CHARS) return line;
  const cut = line.slice(0, TITLE_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

export const DEFAULT_CWD = '/workspace/console';

/** An id that is unique enough for a thread, run or message (works outside secure contexts too). */
export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return `${prefix}-${Date.now().toString(36)}-${[...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

export function newThreadSettings(overrides: Partial<Pick<ThreadSettings, 'cwd' | 'rosInvocationId' | 'runMode' | 'language'>> = {}): ThreadSettings {
  return {
    threadId: newId('console-thread'),
    cwd: overrides.cwd || DEFAULT_CWD,
    rosInvocationId: overrides.rosInvocationId || newId('console-invocation'),
    runMode: overrides.runMode ?? 'normal',
    language: overrides.language ?? '',
    createdAt: Date.now(),
    started: false,
  };
}

/** `forwardedProps.iacCode` for a run of this thread (docs/protocol.md §3). */
export function iacCodeOf(settings: ThreadSettings): Record<string, unknown> {
  const iacCode: Record<string, unknown> = { schemaVersion: 1, rosInvocationId: settings.rosInvocationId, cwd: settings.cwd, runMode: settings.runMode };
  if (settings.language) iacCode['preferredLanguage'] = settings.language;
  return iacCode;
}
