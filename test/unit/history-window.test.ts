/**
 * A takeover's windowed history reads (lib/core/reattach/history-window.ts): joined onto what was
 * read before, a window asked for with a bound on what was added gives the task's true history or
 * nothing — never a wrong one — for both ways a kernel keeps text (one message per delta under a
 * shared id, as iac-code does; one message per id growing in place), with deltas that repeat.
 */
import { describe, expect, it } from 'vitest';
import type { WireMessage } from '../../lib/core/a2a/wire-types.js';
import { joinWindow, MIN_OVERLAP, windowFor } from '../../lib/core/reattach/history-window.js';
import { seededRandom } from '../support/oss-adversary.js';

const agent = (messageId: string, text: string): WireMessage => ({ messageId, role: 'ROLE_AGENT', parts: [{ text }] });

/** A kernel's history after each of `steps` deltas, one snapshot per step (deep copies: a read never changes). */
function histories(random: () => number, mode: 'perDelta' | 'growing' | 'dots', steps: number): WireMessage[][] {
  // `dots`: one delta over and over under one id (a rule of dashes streamed): every place fits.
  const words = mode === 'dots' ? ['.'] : ['a', 'b', 'a b', '.'];
  const history: WireMessage[] = [{ messageId: 'user-1', role: 'ROLE_USER', parts: [{ text: 'go' }] }];
  const out: WireMessage[][] = [];
  let message = 1;
  for (let step = 0; step < steps; step += 1) {
    if (random() < 0.1) message += 1;
    const id = `m-${message}`;
    const text = words[Math.floor(random() * words.length)] as string;
    const last = history.at(-1);
    if (mode === 'growing' && last?.messageId === id) history[history.length - 1] = agent(id, `${last.parts[0]?.text ?? ''}${text}`);
    // Per delta, iac-code's way: each delta its own message, ids repeating (a repeat makes joins ambiguous).
    else history.push(agent(mode === 'dots' || (mode === 'perDelta' && random() < 0.5) ? id : `${id}-${step}`, text));
    out.push(structuredClone(history));
  }
  return out;
}

describe('joining a history window onto the history read before', () => {
  it('gives the true history or undefined, never another, over seeded histories of both kinds', () => {
    let joined = 0;
    let refused = 0;
    for (let seed = 1; seed <= 100; seed += 1) {
      const random = seededRandom(seed);
      for (const mode of ['perDelta', 'growing', 'dots'] as const) {
        const steps = histories(random, mode, 60);
        let known = steps[0] as WireMessage[];
        let index = 0;
        while (index < steps.length - 1) {
          const previous = index;
          index = Math.min(steps.length - 1, index + 1 + Math.floor(random() * 12));
          const truth = steps[index] as WireMessage[];
          // The bound the takeover counts: at least what was added (one live update per step).
          const added = index - previous + Math.floor(random() * 3);
          const asked = windowFor(added);
          const result = joinWindow(known, truth.slice(-asked), asked);
          if (result === undefined) refused += 1;
          else {
            joined += 1;
            expect(result, `seed ${seed} ${mode} step ${index} window ${asked}`).toEqual(truth);
          }
          known = truth;
        }
      }
    }
    // Both answers occur: the test sees joins (most reads) and refusals alike.
    expect(joined).toBeGreaterThan(1_000);
    expect(refused).toBeGreaterThan(10);
  });

  it('joins a window whose bound held, and refuses one whose true place overlaps too little', () => {
    const known = Array.from({ length: 12 }, (_, index) => agent(`m-${index}`, `${index}`));
    const now = [...known, agent('m-12', 'x'), agent('m-13', 'y')];
    expect(joinWindow(known, now.slice(-windowFor(2)), windowFor(2))).toEqual(now);
    // Asked as if nothing was added, though 5 were: its overlap is MIN_OVERLAP - 5, below the floor.
    const more = [...now, agent('m-14', 'z'), agent('m-15', 'w'), agent('m-16', 'v')];
    expect(joinWindow(known, more.slice(-MIN_OVERLAP), MIN_OVERLAP)).toBeUndefined();
  });

  it('takes the last known message grown in place, and nothing else changed', () => {
    const known = Array.from({ length: MIN_OVERLAP - 1 }, (_, index) => agent(`m-${index}`, `${index}`));
    const before = [...known, agent('m-last', 'hel')];
    const after = [...known, agent('m-last', 'hello')];
    expect(joinWindow(before, after, MIN_OVERLAP)).toEqual(after);
    // An earlier message that changed is no overlap.
    expect(joinWindow(before, [agent('m-x', 'x'), ...after.slice(1)], MIN_OVERLAP)).toBeUndefined();
  });

  it('refuses a window that fits at two places', () => {
    const known = Array.from({ length: 12 }, () => agent('m', '.'));
    expect(joinWindow(known, [...known.slice(-9), agent('m', '.')], 10)).toBeUndefined();
  });

  it('takes a window shorter than asked as the whole history', () => {
    expect(joinWindow([agent('m-1', 'a')], [agent('m-1', 'a'), agent('m-2', 'b')], 16)).toEqual([agent('m-1', 'a'), agent('m-2', 'b')]);
  });
});
