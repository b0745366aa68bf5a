/**
 * `/console/config.json` (lib/http/console-route.ts): whether the adapter wants a bearer token,
 * and example prompts when the local stack offers them. Fetched once at start.
 */
export interface Example {
  label: string;
  text: string;
  /** What the example shows, in a few words (the introduction lists the examples that have one). */
  description?: string;
  runMode?: 'normal' | 'pipeline';
}

export interface ConsoleConfig {
  authRequired: boolean;
  examples: Example[];
}

export async function loadConsoleConfig(): Promise<ConsoleConfig> {
  const response = await fetch('/console/config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const body = (await response.json()) as { authRequired?: unknown; examples?: unknown };
  return { authRequired: body.authRequired === true, examples: Array.isArray(body.examples) ? (body.examples as Example[]) : [] };
}
