/**
 * JSON-lines logger with a level filter (IAC_CODE_AGUI_LOG_LEVEL, default info). Fields are
 * structured; errors are logged through errorFields (docs/architecture.md §5 "Errors and
 * logging"). Before a line is written, anything whose key looks like a credential is replaced,
 * a Secret prints its placeholder, and a credential quoted inside text (a bearer token or
 * `token=…` in an error message) is cut out — a second line of defence behind the Secret type: the
 * adapter never passes request bodies, headers or credentials to a logger in the first place.
 */
import { errorFields } from '../core/error-fields.js';
import type { Logger } from '../core/ports.js';
import { REDACTED, redactInlineCredentials } from '../core/redact-text.js';
import { Secret } from '../core/secret.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogSink = (line: string) => void;

const SENSITIVE_KEY = /(authorization|token|secret|password|api[-_]?key|credential|llm[-_]?headers|access[-_]?key|signature)/i;
/** Deeper than any field the adapter logs (an error chain is bounded by errorFields). */
const MAX_DEPTH = 16;

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactInlineCredentials(value);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Secret) return REDACTED;
  // A raw error passed as a field still logs its cause chain (and nothing else it carries).
  if (value instanceof Error) return scrub(errorFields(value), depth);
  if (depth >= MAX_DEPTH) return '[truncated]';
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    out[key] = SENSITIVE_KEY.test(key) ? REDACTED : scrub(inner, depth + 1);
  }
  return out;
}

export function createLogger(sink: LogSink = (line) => process.stdout.write(`${line}\n`), base: Record<string, unknown> = {}, level: LogLevel = 'info'): Logger {
  return new JsonLinesLogger(sink, base, LOG_LEVELS.indexOf(level));
}

/**
 * Its methods live on the prototype: a run keeps its own child logger for its whole life, and an
 * idle run then holds one small object rather than a set of closures (docs/architecture.md §9.6).
 */
class JsonLinesLogger implements Logger {
  constructor(
    private readonly sink: LogSink,
    private readonly base: Record<string, unknown>,
    private readonly threshold: number,
  ) {}

  debug(message: string, fields?: Record<string, unknown>): void {
    this.write('debug', message, fields);
  }

  info(message: string, fields?: Record<string, unknown>): void {
    this.write('info', message, fields);
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.write('warn', message, fields);
  }

  error(message: string, fields?: Record<string, unknown>): void {
    this.write('error', message, fields);
  }

  child(fields: Record<string, unknown>): Logger {
    return new JsonLinesLogger(this.sink, { ...this.base, ...fields }, this.threshold);
  }

  private write(lineLevel: LogLevel, message: string, fields?: Record<string, unknown>): void {
    if (LOG_LEVELS.indexOf(lineLevel) < this.threshold) return;
    const record = scrub({ time: new Date().toISOString(), level: lineLevel, message, ...this.base, ...fields });
    this.sink(JSON.stringify(record));
  }
}

export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};
