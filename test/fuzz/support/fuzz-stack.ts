/**
 * The real adapter for fuzzing (docs/architecture.md §9): the app from lib/http/app.ts with the A2A
 * emulator and a thread store (test/support/stack.ts), called in-process through `app.fetch` for
 * breadth, or over its loopback socket.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { type Stack, type StackOptions, startStack } from '../../support/stack.js';
import { type Answer, checkAnswer } from './answers.js';
import { watchProcess } from './watch-process.js';

export const ORIGIN = 'http://adapter.fuzz';
export const CANCEL_PATH = (executionId: string) => `/extensions/iac-code/v1/executions/${executionId}/cancel`;

export interface FuzzRequest {
  path?: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

/**
 * A fuzz file's stack, started before its tests and closed after them (the memory store unless
 * `options` says otherwise), and the watch on the process: after every test, no unhandled rejection
 * and no uncaught exception happened. Call at the top level of the file; read `.stack` in tests.
 */
export function useFuzzStack(options: StackOptions = {}): { readonly stack: Stack } {
  const watch = watchProcess();
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack({ store: 'memory', ...options });
  });
  afterAll(async () => {
    await stack?.close();
    watch.stop();
  });
  afterEach(() => expect(watch.problems).toEqual([]));
  return {
    get stack(): Stack {
      if (!stack) throw new Error('the fuzz stack starts in beforeAll');
      return stack;
    },
  };
}

/** Sends a request in-process and checks the answer's invariants. */
export async function sendInProcess(stack: Stack, request: FuzzRequest): Promise<Answer> {
  const path = request.path ?? '/';
  const response = await stack.app.fetch(
    new Request(`${ORIGIN}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...request.headers }, body: request.body }),
  );
  return checkAnswer(response, describeRequest(path, request));
}

export function describeRequest(path: string, request: FuzzRequest): string {
  const body = typeof request.body === 'string' ? request.body : `<${request.body.byteLength} bytes: ${Buffer.from(request.body.slice(0, 80)).toString('hex')}>`;
  return `POST ${path} ${JSON.stringify(request.headers ?? {})} ${body}`;
}
