/**
 * zod schemas of what a caller may POST (docs/protocol.md §3).
 *
 * The envelope follows @ag-ui/core's RunAgentInput and is tolerant where the official client
 * needs it (protocolVersion and unknown top-level keys, every message role, other keys of
 * forwardedProps). `forwardedProps.iacCode` is strict: unknown fields are rejected. Its fields are
 * named in camelCase here; their snake_case spellings are renamed before this schema runs
 * (iac-code-aliases.ts, docs/protocol.md §3.5). Every value forwarded to the kernel as metadata is
 * bounded by the size the kernel may echo it at (echo-size.ts, docs/protocol.md §1.4).
 */
import * as z from 'zod/mini';
import { forwarded } from './echo-size.js';
import { identity, MAX_CWD_LENGTH, MAX_ID_LENGTH, MAX_ROS_INVOCATION_ID_LENGTH, wellFormed } from './identity.js';

export const MESSAGE_ROLES = ['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning'] as const;

const messageSchema = z.looseObject({
  id: z.optional(z.string()),
  role: z.enum(MESSAGE_ROLES),
});

export const resumeEntrySchema = z.strictObject({
  interruptId: identity(),
  status: z.enum(['resolved', 'cancelled']),
  payload: z.optional(z.unknown()),
  metadata: z.optional(z.record(z.string(), z.unknown())),
});

export const envelopeSchema = z.looseObject({
  threadId: identity(MAX_ID_LENGTH),
  runId: identity(MAX_ID_LENGTH),
  parentRunId: z.optional(identity()),
  protocolVersion: z.optional(z.string()),
  state: z.unknown().check(z.refine((value) => value !== undefined, 'Required')),
  messages: z.array(messageSchema),
  tools: z.array(z.unknown()),
  context: z.array(z.unknown()),
  forwardedProps: z.looseObject({ iacCode: z.unknown() }),
  resume: z.optional(z.array(resumeEntrySchema)),
});

/** A JSON null in an optional field means "absent" (the official clients serialise None as null). */
const optionalString = z.nullish(forwarded(z.string()));
const stringMap = forwarded(z.record(z.string(), z.string()));
/** guidanceId / inputDigest: a non-empty string, or null (docs/protocol.md §3.5). */
const optionalToken = z.nullish(forwarded(identity()));

export const alibabaCloudSchema = z.strictObject({
  accessKeyId: optionalString,
  accessKeySecret: optionalString,
  securityToken: optionalString,
  regionId: optionalString,
});

export const iacCodeSchema = z.strictObject({
  schemaVersion: z.literal(1),
  rosInvocationId: identity(MAX_ROS_INVOCATION_ID_LENGTH),
  cwd: wellFormed(z.string().check(z.minLength(1), z.maxLength(MAX_CWD_LENGTH))).check(z.refine((cwd) => !cwd.includes('\0'), 'Must not contain NUL.')),
  model: optionalString,
  llmApiKey: optionalString,
  llmHeaders: z.nullish(stringMap),
  thinking: z.nullish(
    z.strictObject({
      enabled: z.nullish(z.boolean()),
      effort: optionalString,
      budget: z.nullish(z.int().check(z.positive())),
    }),
  ),
  userId: z.nullish(forwarded(wellFormed(z.string()))),
  channel: optionalString,
  preferredLanguage: optionalString,
  candidatePresentation: z.nullish(z.enum(['standard', 'rich'])),
  runMode: z.nullish(z.enum(['normal', 'pipeline'])),
  pipelineName: optionalString,
  cleanupOnly: z.nullish(z.boolean()),
  alibabaCloud: z.nullish(alibabaCloudSchema),
  /** A guidance run into a live pipeline (docs/protocol.md §6.13); the adapter's own switch, never forwarded. */
  activeGuidance: z.nullish(z.boolean()),
  guidanceId: optionalToken,
  inputDigest: optionalToken,
  /** Any JSON object; forwarded verbatim, never enforced (docs/protocol.md §10.4). */
  executionFence: z.nullish(forwarded(z.record(z.string(), z.unknown()))),
});

export type IacCodeProps = z.infer<typeof iacCodeSchema>;
export type ResumeEntry = z.infer<typeof resumeEntrySchema>;
export type Envelope = z.infer<typeof envelopeSchema>;

/** The cancel extension's body (docs/protocol.md §6.7). */
export const cancelBodySchema = z.looseObject({
  threadId: identity(MAX_ID_LENGTH),
  rosInvocationId: identity(MAX_ROS_INVOCATION_ID_LENGTH),
});
