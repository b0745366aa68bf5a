/**
 * The real kernel killed mid-run and started again (docs/architecture.md §9.7): the run that was
 * streaming ends RUN_ERROR A2A_UNAVAILABLE, and once the kernel is back the thread takes its next
 * turn.
 */
import { expect, it } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import { describeWithKernel, iacCodeIn, isTextDelta, liveRun, textOfEvents, useKernel, userTurn } from './support/kernel-suite.js';

describeWithKernel('a kernel restart with the real kernel', () => {
  const kernel = useKernel('restart');

  it('ends the run cut by the crash with A2A_UNAVAILABLE, then takes the next turn once the kernel is back', async () => {
    const workspace = await kernel.workspace();
    const agent = kernel.agent();
    agent.messages.push({ id: uniqueId('msg'), role: 'user', content: 'a slow answer please' });
    const run = liveRun(agent, { forwardedProps: { iacCode: iacCodeIn(workspace) } });
    await run.until(isTextDelta('part 1'));
    await kernel.pair.killKernel();
    const cut = await run.done;
    expect(cut.error).toMatchObject({ code: 'A2A_UNAVAILABLE', message: 'The local A2A execution service is unavailable.' });
    expect(textOfEvents(cut.events)).toMatch(/^part 0 part 1 /);

    await kernel.pair.startKernel();
    const next = await userTurn(agent, workspace, 'hello after the restart');
    expect(next.error).toBeUndefined();
    expect(textOfEvents(next.events)).toBe('Hello from the fake model. You said: hello after the restart ');
  });
});
