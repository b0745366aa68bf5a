/** Waits until `condition` holds, checking every `stepMs`; throws `timed out` after `ms`. */
export async function until(condition: () => Promise<boolean> | boolean, ms: number, stepMs = 25): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}
