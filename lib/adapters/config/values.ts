/**
 * Reading single values from the environment (docs/protocol.md §9). Every failure is a
 * ConfigError whose one-line message names the variable and the value it got.
 */
import { ConfigError } from './config-error.js';

export type Env = Record<string, string | undefined>;

/** The variable's value, with an empty string read as unset (a shell's `NAME=` means "not set"). */
export function setting(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** Switches such as IAC_CODE_AGUI_A2A_ALLOW_INSECURE are on only when exactly "1". */
export function flag(env: Env, name: string): boolean {
  return env[name] === '1';
}

function integer(env: Env, name: string, fallback: number, minimum: 0 | 1): number {
  const raw = setting(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum) {
    throw new ConfigError(`${name} must be a ${minimum === 1 ? 'positive' : 'non-negative'} integer, got "${raw}"`);
  }
  return value;
}

export function positiveInteger(env: Env, name: string, fallback: number): number {
  return integer(env, name, fallback, 1);
}

/** Zero allowed: e.g. IAC_CODE_AGUI_SHUTDOWN_DRAIN_MS=0 aborts live runs at once. */
export function nonNegativeInteger(env: Env, name: string, fallback: number): number {
  return integer(env, name, fallback, 0);
}
