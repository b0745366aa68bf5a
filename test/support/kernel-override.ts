/**
 * A real kernel client with some of its calls replaced, for the faults the A2A emulator cannot be
 * made to produce on cue (docs/architecture.md §9.1). Every other call goes to the real client,
 * bound to it (its methods live on its class, so a spread would lose them).
 */
import type { A2AKernel } from '../../lib/core/ports.js';

export function overridingKernel(kernel: A2AKernel, overrides: Partial<A2AKernel>): A2AKernel {
  return new Proxy(kernel, {
    get(target, key, receiver) {
      if (key in overrides) return overrides[key as keyof A2AKernel];
      const value = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
