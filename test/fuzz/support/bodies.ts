/**
 * Arbitraries for request bodies (docs/protocol.md §3, §5.3, §6.7): RunAgentInput envelopes whose
 * fields are mostly valid and sometimes hostile — so that fuzzing reaches admission and the
 * stream, not only the envelope check — forwardedProps.iacCode, resume arrays, cancel bodies and
 * JSON nested around the 256-level limit and far beyond it.
 */
import fc from 'fast-check';
import { MESSAGE_ROLES } from '../../../lib/core/protocol/schemas.js';
import { PNG_1x1, uniqueId } from '../../support/fixtures.js';
import { nestedJson, RawJson } from './json-text.js';
import { edgeString, headerValue, identityString, objectKey } from './strings.js';

/** Emulator scenarios that end by themselves within a second (lib/emulators/a2a/scenarios.ts). */
export const QUICK_SCENARIOS = [
  'hello',
  'complete',
  'tools',
  'thinking',
  'artifact',
  'retryable-error',
  'fatal-error',
  'working-end',
  'late-session',
  'permission',
  'question',
  'candidates',
  'two-permissions',
] as const;

/** Mostly `valid`, sometimes `hostile`. */
function mostly<T, U>(valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<U>, weight = 6): fc.Arbitrary<T | U> {
  return fc.oneof({ arbitrary: valid, weight }, { arbitrary: hostile, weight: 1 });
}

/**
 * A valid object with a few of its fields replaced by hostile values (or removed: a hostile
 * `undefined`). About half of the values are left valid, so fuzzing reaches admission and streams.
 */
function mutated<T extends Record<string, unknown>>(
  valid: fc.Arbitrary<T>,
  hostile: Partial<Record<keyof T | (string & {}), fc.Arbitrary<unknown>>>,
  maxMutations = 2,
): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(hostile);
  const replacements = fc.record(hostile as Record<string, fc.Arbitrary<unknown>>);
  const chosen = fc.oneof({ arbitrary: fc.constant<string[]>([]), weight: 3 }, { arbitrary: fc.subarray(keys, { minLength: 1, maxLength: maxMutations }), weight: 2 });
  return fc.tuple(valid, replacements, chosen).map(([base, values, fields]) => {
    const out: Record<string, unknown> = { ...base };
    for (const field of fields) out[field] = values[field];
    return out;
  });
}

const absentOr = (arbitrary: fc.Arbitrary<unknown>) => fc.oneof(fc.constant(undefined), arbitrary);
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 2 });

/** Nesting around the limit (255–258 levels inside the body) and far beyond it. */
export const deepJson = fc
  .tuple(
    fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 250, max: 260 }), fc.integer({ min: 1_000, max: 30_000 })),
    fc.constantFrom('object', 'array', 'mixed') as fc.Arbitrary<'object' | 'array' | 'mixed'>,
  )
  .map(([levels, kind]) => nestedJson(levels, kind));

export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 4 },
  { arbitrary: fc.dictionary(objectKey, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4, noNullPrototype: true }), weight: 2 },
  { arbitrary: edgeString, weight: 1 },
  { arbitrary: deepJson, weight: 1 },
);

/** A fresh id per generated value, so most runs land on a thread of their own. */
export const freshId = (prefix: string) => fc.constant(prefix).map((value) => uniqueId(value));

export const scenarioText = fc.tuple(fc.constantFrom(...QUICK_SCENARIOS), fc.string({ maxLength: 24 })).map(([scenario, rest]) => `${scenario} ${rest}`);

const imageSource = fc.record({
  type: mostly(fc.constant('data'), fc.constantFrom('url', 'base64', '')),
  mimeType: mostly(fc.constantFrom('image/png', 'IMAGE/PNG', 'image/jpeg', 'image/gif', 'image/webp'), fc.oneof(headerValue, fc.constant('image/bmp'))),
  value: mostly(fc.constant(PNG_1x1), fc.oneof(fc.base64String({ maxLength: 64 }), fc.constant(`${PNG_1x1} `), fc.constant('https://example.com/x.png'), edgeString)),
});

const contentPart: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.oneof(fc.string({ maxLength: 20 }), edgeString, anyJson) }),
  fc.record({ type: fc.constant('image'), source: imageSource, metadata: fc.option(fc.record({ filename: identityString }), { nil: undefined }) }),
  fc.record({
    type: fc.constant('binary'),
    mimeType: fc.constantFrom('image/png', 'application/zip'),
    data: fc.option(fc.constant(PNG_1x1), { nil: undefined }),
    url: fc.option(fc.webUrl(), { nil: undefined }),
    filename: fc.option(identityString, { nil: undefined }),
  }),
  fc.record({ type: fc.oneof(fc.constantFrom('audio', 'video', 'document'), identityString) }),
  anyJson,
);

/** User content whose text starts with a quick scenario's name (the emulator picks it by the first word). */
const userContent = fc.oneof(
  { arbitrary: scenarioText, weight: 4 },
  { arbitrary: fc.tuple(scenarioText, fc.array(contentPart, { maxLength: 3 })).map(([text, parts]) => [{ type: 'text', text }, ...parts]), weight: 2 },
  { arbitrary: anyJson, weight: 1 },
);

const userMessage = mutated(
  fc.record({ id: freshId('message'), role: fc.constant('user'), content: scenarioText }),
  {
    id: absentOr(identityString),
    content: userContent,
    name: edgeString,
  },
  1,
);

const otherMessage = fc.record({ id: identityString, role: mostly(fc.constantFrom(...MESSAGE_ROLES), identityString), content: anyJson }, { requiredKeys: ['role'] });

/** Usually ends with a user message, as the official client sends it. */
const messages = fc.tuple(fc.array(otherMessage, { maxLength: 2 }), userMessage).map(([history, latest]) => [...history, latest]);

const workspace = fc.oneof(
  { arbitrary: fc.constantFrom('/workspace/a', '/workspace/a/', '/w', '/srv/iac//x/./y'), weight: 8 },
  { arbitrary: fc.constantFrom('relative/path', '/a/../b', '', '/a\u0000b', `/${'w'.repeat(4_100)}`), weight: 1 },
  { arbitrary: identityString.map((id) => `/${id}`), weight: 1 },
);

const validIacCode = fc.record(
  {
    schemaVersion: fc.constant(1),
    rosInvocationId: fc.constantFrom('invocation-1', 'invocation-2'),
    cwd: fc.constantFrom('/workspace/a', '/workspace/a/', '/w', '/srv/iac//x/./y'),
    model: optional(fc.constantFrom('qwen3-max', ' ')),
    llmApiKey: optional(fc.constantFrom('sk-fuzz-secret', '')),
    llmHeaders: optional(fc.dictionary(fc.stringMatching(/^[a-z-]{1,8}$/), fc.string({ maxLength: 8 }), { maxKeys: 2, noNullPrototype: true })),
    thinking: optional(fc.record({ enabled: fc.boolean(), effort: fc.constantFrom('low', 'high'), budget: fc.integer({ min: 1, max: 5_000 }) }, { requiredKeys: [] })),
    userId: optional(fc.constantFrom('user-1', null)),
    channel: optional(fc.constantFrom('ros', 'console')),
    preferredLanguage: optional(fc.constantFrom('en', 'zh-CN', 'de_DE', 'ja', 'pt-BR', 'xx', '*')),
    candidatePresentation: optional(fc.constantFrom('standard', 'rich')),
    runMode: optional(fc.constantFrom('normal', 'pipeline')),
    pipelineName: optional(fc.constantFrom('deploy', '')),
    cleanupOnly: optional(fc.boolean()),
    alibabaCloud: optional(
      fc.record({ accessKeyId: fc.constant('AK-fuzz'), accessKeySecret: fc.constant('fuzz-ak-secret'), regionId: fc.constant('cn-hangzhou') }, { requiredKeys: [] }),
    ),
  },
  { requiredKeys: ['schemaVersion', 'rosInvocationId', 'cwd'] },
);

/** forwardedProps.iacCode (docs/protocol.md §3.5): valid, with a field or two hostile, missing or unknown. */
export const iacCode: fc.Arbitrary<unknown> = mostly(
  mutated(validIacCode, {
    schemaVersion: absentOr(anyJson),
    rosInvocationId: absentOr(identityString),
    cwd: absentOr(fc.oneof(workspace, anyJson)),
    model: anyJson,
    llmHeaders: fc.oneof(fc.dictionary(objectKey, fc.oneof(fc.string({ maxLength: 8 }), anyJson), { maxKeys: 3, noNullPrototype: true }), anyJson),
    thinking: fc.oneof(fc.record({ enabled: anyJson, effort: anyJson, budget: fc.oneof(fc.integer(), fc.double(), anyJson) }, { requiredKeys: [] }), anyJson),
    userId: fc.oneof(identityString, anyJson),
    channel: fc.oneof(edgeString, anyJson),
    preferredLanguage: fc.oneof(headerValue, anyJson),
    candidatePresentation: anyJson,
    runMode: anyJson,
    cleanupOnly: anyJson,
    alibabaCloud: fc.oneof(fc.dictionary(objectKey, anyJson, { maxKeys: 3, noNullPrototype: true }), anyJson),
    // Keys the schema does not know: prototype names, snake_case spellings, the peer's guidance fields.
    ...Object.fromEntries(['__proto__', 'constructor', 'ros_invocation_id', 'llm_api_key', 'activeGuidance'].map((key) => [key, absentOr(anyJson)])),
  }),
  anyJson,
  12,
);

/** `resume` entries (docs/protocol.md §5.3), with `ids` as likely interrupt ids. */
export function resumeArray(ids: fc.Arbitrary<string> = identityString): fc.Arbitrary<unknown> {
  const entry = fc.record(
    {
      interruptId: mostly(ids, identityString),
      status: mostly(fc.constantFrom('resolved', 'cancelled'), anyJson),
      payload: fc.oneof(fc.constantFrom({ decision: 'allow_once' }, { decision: 'deny' }, { freeText: 'yes' }, { selectedId: 'a' }), anyJson),
      metadata: fc.option(fc.dictionary(objectKey, anyJson, { maxKeys: 2, noNullPrototype: true }), { nil: undefined, freq: 4 }),
    },
    { requiredKeys: ['interruptId', 'status'] },
  );
  return mostly(fc.array(mostly(entry, anyJson, 10), { maxLength: 3 }), anyJson);
}

const validRunInput = fc.record({
  threadId: freshId('thread'),
  runId: freshId('run'),
  state: fc.constantFrom({}, { step: 1 }, null),
  messages: messages,
  tools: fc.constant([]),
  context: fc.constant([]),
  forwardedProps: iacCode.map((props) => ({ iacCode: props })),
});

/** A RunAgentInput: valid, with a field or two hostile, missing or added. */
export const runInput = mutated(validRunInput, {
  threadId: absentOr(identityString),
  runId: absentOr(identityString),
  parentRunId: identityString,
  protocolVersion: fc.oneof(fc.constant('0.0.40'), anyJson),
  state: absentOr(fc.oneof(anyJson, deepJson)),
  messages: absentOr(fc.oneof(fc.array(fc.oneof(otherMessage, anyJson), { maxLength: 3 }), anyJson)),
  tools: absentOr(fc.oneof(fc.array(anyJson, { minLength: 1, maxLength: 2 }), anyJson)),
  context: absentOr(fc.oneof(fc.array(anyJson, { maxLength: 2 }), deepJson)),
  forwardedProps: absentOr(fc.oneof(anyJson, fc.record({ iacCode: anyJson, other: fc.oneof(anyJson, deepJson) }, { requiredKeys: [] }))),
  resume: resumeArray(),
  ...Object.fromEntries(['__proto__', 'constructor', 'somethingNew'].map((key) => [key, anyJson])),
});

/** The cancel extension's body (docs/protocol.md §6.7). */
export const cancelBody: fc.Arbitrary<unknown> = mostly(
  fc.record(
    { threadId: identityString, rosInvocationId: mostly(fc.constantFrom('invocation-1'), identityString), extra: fc.option(anyJson, { nil: undefined }) },
    { requiredKeys: ['threadId', 'rosInvocationId'] },
  ),
  fc.oneof(anyJson, deepJson),
  3,
);

export { RawJson };
