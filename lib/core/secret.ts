/**
 * A value that must never be logged or stored (brief: "Secrets are a type, not a string").
 * JSON.stringify, String() and util.inspect all print a placeholder; only reveal() gives the value.
 */
const REDACTED = '[redacted]';

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return REDACTED;
  }

  toString(): string {
    return REDACTED;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return REDACTED;
  }
}

export function secretFrom(value: string | undefined): Secret | undefined {
  return value ? new Secret(value) : undefined;
}
