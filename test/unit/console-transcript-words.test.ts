/**
 * How the console words what it shows (docs/architecture.md §4.7): a tool result that reports an
 * error (lib/console/app/transcript/tool-errors.ts — AG-UI has no error flag, docs/protocol.md §4.7),
 * a thread's title from its first message (threads/thread-settings.ts), an interrupt's facts in
 * words and its message without the options its form shows (interrupts/interrupt-facts.ts), and the
 * next step a failure's code calls for (transcript/next-steps.ts).
 */
import { describe, expect, it } from 'vitest';
import { toolErrorOf } from '../../lib/client/tool-errors.js';
import { factsOf, messageWithoutOptions } from '../../lib/console/app/interrupts/interrupt-facts.js';
import { titleFrom } from '../../lib/console/app/threads/thread-settings.js';
import { nextStepFor } from '../../lib/console/app/transcript/next-steps.js';

describe('the words of the console’s transcript', () => {
  it('reads a tool result as failed when it reports an error, and only then', () => {
    expect(toolErrorOf('{"error":"lint failed","line":3}')).toBe('lint failed');
    expect(toolErrorOf('{"error":{"message":"quota exceeded","code":429}}')).toBe('quota exceeded');
    expect(toolErrorOf('{"isError":true,"message":"denied"}')).toBe('denied');
    expect(toolErrorOf('{"error":""}')).toBeUndefined();
    expect(toolErrorOf('{"errors":0,"ok":true}')).toBeUndefined();
    expect(toolErrorOf('error: not JSON, so not a report')).toBeUndefined();
    expect(toolErrorOf('["error"]')).toBeUndefined();
  });

  it('titles a thread by its first line, cut at a word', () => {
    expect(titleFrom('  hello: a VPC\nand more  ')).toBe('hello: a VPC');
    const long = 'create a production network with three availability zones and a NAT gateway in front';
    expect(titleFrom(long)).toBe('create a production network with three availability zones…');
    expect(titleFrom('x'.repeat(80))).toBe(`${'x'.repeat(60)}…`);
  });

  it('says an interrupt’s facts in words and drops its message’s option lines', () => {
    expect(factsOf({ toolName: 'run_shell', target: 'terraform plan', effect: 'local_execution', safeSummary: 'run_shell: terraform plan', isReadOnly: false })).toEqual([
      ['Tool', 'run_shell'],
      ['Target', 'terraform plan'],
      ['Effect', 'runs a command on the kernel’s machine'],
    ]);
    expect(factsOf({ effect: 'quantum_change', safeSummary: 'deletes the VPC' })).toEqual([
      ['Effect', 'quantum change'],
      ['Summary', 'deletes the VPC'],
    ]);
    const options = [
      { id: 'plan-a', title: 'Plan A' },
      { id: 'plan-b', title: 'Plan B' },
    ];
    expect(messageWithoutOptions('Which network plan should I use?\n- plan-a: Plan A\n- plan-b: Plan B', options)).toBe('Which network plan should I use?');
    expect(messageWithoutOptions('Which plan?\n1. Plan A\n2) Plan B', options)).toBe('Which plan?');
    expect(messageWithoutOptions('Plan A is cheaper; which plan?', options)).toBe('Plan A is cheaper; which plan?');
  });

  it('gives each failure code a next step, and a general one to any other', () => {
    expect(nextStepFor('A2A_UNAVAILABLE')).toBe('The kernel could not be reached or stopped answering. Wait a moment, then send your message again.');
    expect(nextStepFor('SOMETHING_NEW')).toBe('Send a new message to try again.');
  });
});
