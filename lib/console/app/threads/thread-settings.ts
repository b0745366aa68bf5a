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
