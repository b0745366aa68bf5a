/**
 * A lazily made value shared by every caller: `make()` runs on the first call and its promise is
 * kept; a failure is not kept, so the next call tries again. For imports made on first use
 * (docs/architecture.md §6.3) and other one-time preparations.
 */
export function onceUntilFailure<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    if (!made) {
      const attempt = make();
      made = attempt;
      attempt.catch(() => {
        if (made === attempt) made = undefined;
      });
    }
    return made;
  };
}
