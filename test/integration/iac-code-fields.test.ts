/**
 * `forwardedProps.iacCode` as the peer's clients send it (docs/protocol.md §3.5, §3.7, §7.3): every
 * field under its snake_case name too, the same field under both spellings refused by name, one
 * request digest for both spellings, and the guidance keys (`guidanceId`, `inputDigest`,
 * `executionFence`) forwarded on every kind of A2A message a run sends — `activeGuidance` never.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lib/core/canonical-json.js';
import { sha256Hex } from '../../lib/core/hash.js';
import type { RecordedCall } from '../../lib/emulators/a2a/server.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { type InterruptShape, interruptsOf, lastEvent, resolved, threadCalls } from '../support/interrupts.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack.close());

interface ErrorBody {
  error: { code: string; message: string; details?: Array<{ path: string; message: string }> };
}

function body(iacCode: Record<string, unknown>, options: { threadId?: string; runId?: string; text?: string } = {}): Record<string, unknown> {
  const built = runBody({ ...options });
  (built['forwardedProps'] as Record<string, unknown>)['iacCode'] = iacCode;
  return built;
}

function iacOf(call: RecordedCall | undefined): Record<string, unknown> {
  return (call?.params as { message: { metadata: { iac_code: Record<string, unknown> } } }).message.metadata.iac_code;
}

async function errorOf(response: Response, status: number): Promise<ErrorBody['error']> {
  expect(response.status).toBe(status);
  return ((await response.json()) as ErrorBody).error;
}

const CAMEL = {
  schemaVersion: 1,
  rosInvocationId: 'inv-spelling',
  cwd: '/workspace/spelling',
  model: 'qwen-max',
  llmApiKey: 'sk-spelling',
  llmHeaders: { 'X-Team': 'a', x_trace_id: 't-1' },
  thinking: { enabled: true, effort: 'low', budget: 64 },
  userId: 'user-1',
  channel: 'console',
  preferredLanguage: 'zh',
  candidatePresentation: 'rich',
  runMode: 'normal',
  pipelineName: 'vpc',
  cleanupOnly: false,
  alibabaCloud: { accessKeyId: 'AKID', accessKeySecret: 'AKSECRET', securityToken: 'STS', regionId: 'cn-beijing' },
  activeGuidance: false,
  executionFence: { owner: 'node-a', handoff_epoch: 3 },
};

const SNAKE = {
  schema_version: 1,
  ros_invocation_id: 'inv-spelling',
  cwd: '/workspace/spelling',
  model: 'qwen-max',
  llm_api_key: 'sk-spelling',
  llm_headers: { 'X-Team': 'a', x_trace_id: 't-1' },
  thinking: { enabled: true, effort: 'low', budget: 64 },
  user_id: 'user-1',
  channel: 'console',
  preferred_language: 'zh',
  candidate_presentation: 'rich',
  run_mode: 'normal',
  pipeline_name: 'vpc',
  cleanup_only: false,
  alibaba_cloud: { access_key_id: 'AKID', access_key_secret: 'AKSECRET', security_token: 'STS', region_id: 'cn-beijing' },
  active_guidance: false,
  execution_fence: { owner: 'node-a', handoff_epoch: 3 },
};

describe('snake_case spellings of iacCode', () => {
  it('accept every field under its snake_case name and forward exactly what the camelCase spelling forwards', async () => {
    const camel = body(CAMEL);
    const snake = body(SNAKE);
    expect((await stack.run(camel)).status).toBe(200);
    const snakeRun = await stack.run(snake);
    expect(snakeRun.status).toBe(200);
    expect(lastEvent(snakeRun.sse)).toMatchObject({ type: 'RUN_FINISHED' });
    const sentCamel = iacOf(threadCalls(stack, camel['threadId'] as string, 'SendStreamingMessage')[0]);
    const sentSnake = iacOf(threadCalls(stack, snake['threadId'] as string, 'SendStreamingMessage')[0]);
    expect(sentSnake).toEqual(sentCamel);
    // Map and fence contents are kept as given: header names and fence keys are not field names.
    expect(sentSnake).toMatchObject({
      rosInvocationId: 'inv-spelling',
      preferredLanguage: 'zh',
      llm_headers: { 'X-Team': 'a', x_trace_id: 't-1' },
      alibaba_cloud_region_id: 'cn-beijing',
      execution_fence: { owner: 'node-a', handoff_epoch: 3 },
    });
    expect(sentSnake).not.toHaveProperty('activeGuidance');
    expect(sentSnake).not.toHaveProperty('active_guidance');
  });

  it('refuse the same field under both spellings, naming it, at the top level and inside alibabaCloud', async () => {
    const both = await errorOf(
      await stack.post(
        '/',
        body({
          ...CAMEL,
          ros_invocation_id: 'inv-spelling',
          alibabaCloud: { accessKeyId: 'AKID', access_key_id: 'AKID' },
          llm_headers: {},
          active_guidance: false,
        }),
      ),
      400,
    );
    expect(both.code).toBe('INVALID_INPUT');
    expect(both.details).toEqual(
      expect.arrayContaining([
        { path: 'forwardedProps.iacCode.ros_invocation_id', message: 'Give rosInvocationId or ros_invocation_id, not both.' },
        { path: 'forwardedProps.iacCode.llm_headers', message: 'Give llmHeaders or llm_headers, not both.' },
        { path: 'forwardedProps.iacCode.active_guidance', message: 'Give activeGuidance or active_guidance, not both.' },
        { path: 'forwardedProps.iacCode.alibabaCloud.access_key_id', message: 'Give accessKeyId or access_key_id, not both.' },
      ]),
    );
    const nested = await errorOf(await stack.post('/', body({ ...SNAKE, alibaba_cloud: { region_id: 'a', regionId: 'a' } })), 400);
    expect(nested.details).toEqual([{ path: 'forwardedProps.iacCode.alibaba_cloud.region_id', message: 'Give regionId or region_id, not both.' }]);
  });

  it('name a bad value by the spelling the caller used, and still refuse unknown fields', async () => {
    const error = await errorOf(
      await stack.post(
        '/',
        body({ ...SNAKE, ros_invocation_id: '', alibaba_cloud: { access_key_id: 5 }, guidance_id: '', execution_fence: 'node-a', rosInvocationID: 'x', ros_invocation: 'y' }),
      ),
      400,
    );
    expect(error.message).toBe('无效的 iac-code 转发属性。');
    expect(error.details?.map((detail) => detail.path)).toEqual(
      expect.arrayContaining([
        'forwardedProps.iacCode.ros_invocation_id',
        'forwardedProps.iacCode.alibaba_cloud.access_key_id',
        'forwardedProps.iacCode.guidance_id',
        'forwardedProps.iacCode.execution_fence',
        'forwardedProps.iacCode.rosInvocationID',
        'forwardedProps.iacCode.ros_invocation',
      ]),
    );
    expect(error.details?.find((detail) => detail.path.endsWith('rosInvocationID'))?.message).toBe('Unknown field.');
  });

  it('count as one request for run-id idempotency: either spelling of the same body is DUPLICATE_RUN_ID', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const camel = body({ schemaVersion: 1, rosInvocationId: 'x', cwd: '/workspace/d', model: 'm' }, { threadId, runId });
    expect((await stack.run(camel)).status).toBe(200);
    const snake = body({ schema_version: 1, ros_invocation_id: 'x', cwd: '/workspace/d', model: 'm' }, { threadId, runId });
    expect((await errorOf(await stack.post('/', snake), 409)).code).toBe('DUPLICATE_RUN_ID');
    const different = body({ schema_version: 1, ros_invocation_id: 'x', cwd: '/workspace/d', model: 'other' }, { threadId, runId });
    expect((await errorOf(await stack.post('/', different), 409)).code).toBe('RUN_ID_CONFLICT');
    // A camelCase body hashes exactly as it always did: its canonical JSON, unchanged.
    const stored = (await stack.store.load(threadId))?.document as { runDigests: Record<string, string> };
    expect(stored.runDigests[runId]).toBe(sha256Hex(canonicalJson(camel)));
  });
});

describe('guidanceId, inputDigest and executionFence', () => {
  const GUIDANCE = { guidanceId: 'guide-1', inputDigest: 'sha256:abc', executionFence: { version: 'session-handoff-v1', owner: 'node-a' } };
  const FORWARDED = { guidance_id: 'guide-1', input_digest: 'sha256:abc', execution_fence: { version: 'session-handoff-v1', owner: 'node-a' } };

  it('are forwarded on a new turn when non-null, null ones are not, and the kernel enforces its guidance rule', async () => {
    const fenced = body({ schemaVersion: 1, rosInvocationId: 'inv-1', cwd: '/workspace/f', guidanceId: null, inputDigest: null, executionFence: FORWARDED.execution_fence });
    expect(lastEvent((await stack.run(fenced)).sse)).toMatchObject({ type: 'RUN_FINISHED' });
    const sent = iacOf(threadCalls(stack, fenced['threadId'] as string, 'SendStreamingMessage')[0]);
    expect(sent['execution_fence']).toEqual(FORWARDED.execution_fence);
    expect(Object.keys(sent)).not.toEqual(expect.arrayContaining(['guidance_id']));
    expect(sent).not.toHaveProperty('input_digest');

    // A new turn has no task yet: the kernel refuses guidance ids without one (invalid-params).
    const guided = body({ schemaVersion: 1, rosInvocationId: 'inv-1', cwd: '/workspace/f', ...GUIDANCE });
    const refused = await stack.run(guided);
    expect(lastEvent(refused.sse)).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_UNAVAILABLE' });
    expect(iacOf(threadCalls(stack, guided['threadId'] as string, 'SendStreamingMessage')[0])).toMatchObject(FORWARDED);
  });

  async function interrupted(scenario: string): Promise<{ threadId: string; interrupts: InterruptShape[] }> {
    const threadId = uniqueId('thread');
    const first = await stack.run(runBody({ threadId, text: scenario }));
    return { threadId, interrupts: interruptsOf(first.sse) };
  }

  function resumeWithGuidance(threadId: string, answers: unknown[]): Record<string, unknown> {
    return runBody({ threadId, iacCode: GUIDANCE, resume: answers });
  }

  it('are forwarded on a permission answer, a question answer, a resource selection and sideband SendMessage answers', async () => {
    const permission = await interrupted('permission');
    const question = await interrupted('question');
    const selection = await interrupted('resource-selection');
    const sideband = await interrupted('two-permissions');
    const allow = (interrupt: InterruptShape) => resolved(interrupt.id, { decision: 'allow_once' });
    for (const [situation, answers] of [
      [permission, [allow(permission.interrupts[0]!)]],
      [question, [resolved(question.interrupts[0]!.id, { selectedId: 'plan-a' })]],
      [selection, [resolved(selection.interrupts[0]!.id, { value: 'vpc-1' })]],
      [sideband, sideband.interrupts.map(allow)],
    ] as const) {
      const resumed = await stack.run(resumeWithGuidance(situation.threadId, [...answers]));
      expect(lastEvent(resumed.sse), situation.threadId).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    }
    const answersOf = (threadId: string, method: string) => threadCalls(stack, threadId, method).filter((call) => iacOf(call)['rosInvocationId'] !== undefined);
    const streamed = [permission, question, selection].map((situation) => answersOf(situation.threadId, 'SendStreamingMessage').slice(1));
    const sent = answersOf(sideband.threadId, 'SendMessage');
    expect(streamed.map((calls) => calls.length)).toEqual([1, 1, 1]);
    expect(sent).toHaveLength(2);
    for (const call of [...streamed.flat(), ...sent]) {
      expect(iacOf(call)).toMatchObject(FORWARDED);
      expect(iacOf(call)).not.toHaveProperty('activeGuidance');
    }
    // The permission answer is still exactly the six-key data part the kernel accepts.
    expect((streamed[0]![0]!.params as { message: { parts: Array<{ data: Record<string, unknown> }> } }).message.parts[0]?.data).toMatchObject({ kind: 'permission' });
  });
});
