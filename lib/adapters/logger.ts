/**
 * JSON-lines logger. Fields are structured; anything whose key looks like a credential is
 * replaced before it is written, as a second line of defence behind the Secret type — the
 * adapter never passes request bodies, headers or credentials to a logger in the first place.
 */
import type { Logger } from '../core/ports.js';

export type LogLevel = 'info' | 'warn' | 'error';
export type LogSink = (line: string) => void;

const SENSITIVE_KEY = /(authorization|token|secret|password|api[-_]?key|credential|llm[-_]?headers|access[-_]?key)/i;

function scrub(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    out[key] = SENSITIVE_KEY.test(key) ? '[redacted]' : scrub(inner, depth + 1);
  }
  return out;
}

export function createLogger(sink: LogSink = (line) => process.stdout.write(`${line}\n`), base: Record<string, unknown> = {}): Logger {
  const write = (level: LogLevel, message: string, fields?: Record<string, unknown>): void => {
    const record = scrub({ time: new Date().toISOString(), level, message, ...base, ...fields });
    sink(JSON.stringify(record));
  };
  return {
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
    child: (fields) => createLogger(sink, { ...base, ...fields }),
  };
}

export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};
