/**
 * Records every unhandled rejection and uncaught exception while a fuzz file runs, so a test can
 * assert none happened (a crash the HTTP answer would not show: a rejected promise nobody awaited).
 */
export interface ProcessWatch {
  readonly problems: string[];
  stop(): void;
}

export function watchProcess(): ProcessWatch {
  const problems: string[] = [];
  const onRejection = (reason: unknown) => problems.push(`unhandledRejection: ${describe(reason)}`);
  const onException = (error: unknown) => problems.push(`uncaughtException: ${describe(error)}`);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    problems,
    stop() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}

function describe(value: unknown): string {
  return value instanceof Error ? `${value.name}: ${value.message}\n${value.stack ?? ''}` : String(value);
}
