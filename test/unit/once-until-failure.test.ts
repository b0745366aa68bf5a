/** onceUntilFailure (lib/core/once-until-failure.ts): one shared value; a failure is tried again. */
import { describe, expect, it } from 'vitest';
import { onceUntilFailure } from '../../lib/core/once-until-failure.js';

describe('onceUntilFailure', () => {
  it('makes the value once for every caller', async () => {
    let made = 0;
    const value = onceUntilFailure(async () => ++made);
    expect(await Promise.all([value(), value(), value()])).toEqual([1, 1, 1]);
    expect(await value()).toBe(1);
    expect(made).toBe(1);
  });

  it('forgets a failure, so the next call tries again, and then keeps the success', async () => {
    let attempts = 0;
    const value = onceUntilFailure(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('not yet');
      return 'ready';
    });
    await expect(value()).rejects.toThrow('not yet');
    expect(await value()).toBe('ready');
    expect(await value()).toBe('ready');
    expect(attempts).toBe(2);
  });
});
