/**
 * The real adapter for fuzzing (docs/architecture.md §9): the app from lib/http/app.ts with the A2A
 * emulator and a thread store (test/support/stack.ts), called in-process through `app.fetch` for
 * breadth, or over its loopback socket.
 */
import { type Stack, type StackOptions, startStack } from '../../support/stack.js';
import { type Answer, checkAnswer } from './answers.js';

export const ORIGIN = 'http://adapter.fuzz';
export const CANCEL_PATH = (executionId: string) => `/extensions/iac-code/v1/executions/${executionId}/cancel`;

export interface FuzzRequest {
  path?: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

export async function startFuzzStack(options: StackOptions = {}): Promise<Stack> {
  return startStack({ store: 'memory', ...options });
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
