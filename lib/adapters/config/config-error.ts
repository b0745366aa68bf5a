/**
 * The one error type of configuration (docs/protocol.md §9): whatever variable is wrong, start-up
 * stops with one line naming it (lib/adapters/start-adapter.ts prints it), never at the first request.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
