/**
 * zod schemas of what a caller may POST (docs/protocol.md §3).
 *
 * The envelope follows @ag-ui/core's RunAgentInput and is tolerant where the official client
 * needs it (protocolVersion and unknown top-level keys, every message role, other keys of
 * forwardedProps). `forwardedProps.iacCode` is strict: unknown fields are rejected. Its fields are
 * named in camelCase here; their snake_case spellings are renamed before this schema runs
 * (iac-code-aliases.ts, docs/protocol.md §3.5).
 */
import { z } from 'zod';
import { identity, MAX_CWD_LENGTH, MAX_ID_LENGTH, wellFormed } from './identity.js';

export const MESSAGE_ROLES = ['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning'] as const;

const messageSchema = z.looseObject({
  id: z.string().optional(),
  role: z.enum(MESSAGE_ROLES),
});

export const resumeEntrySchema = z.strictObject({
  interruptId: identity(),
  status: z.enum(['resolved', 'cancelled']),
  payload: z.unknown().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const envelopeSchema = z.looseObject({
  threadId: identity(MAX_ID_LENGTH),
  runId: identity(MAX_ID_LENGTH),
  parentRunId: identity().optional(),
  protocolVersion: z.string().optional(),
  state: z.unknown().refine((value) => value !== undefined, 'Required'),
  messages: z.array(messageSchema),
  tools: z.array(z.unknown()),
  context: z.array(z.unknown()),
  forwardedProps: z.looseObject({ iacCode: z.unknown() }),
  resume: z.array(resumeEntrySchema).optional(),
});

/** A JSON null in an optional field means "absent" (the official clients serialise None as null). */
const optionalString = z.string().nullish();
const stringMap = z.record(z.string(), z.string());
/** guidanceId / inputDigest: a non-empty string, or null (docs/protocol.md §3.5). */
const optionalToken = identity().nullish();

export const alibabaCloudSchema = z.strictObject({
  accessKeyId: optionalString,
  accessKeySecret: optionalString,
  securityToken: optionalString,
  regionId: optionalString,
});

export const iacCodeSchema = z.strictObject({
  schemaVersion: z.literal(1),
  rosInvocationId: identity(256),
  cwd: wellFormed(z.string().min(1).max(MAX_CWD_LENGTH)).refine((cwd) => !cwd.includes('\0'), 'Must not contain NUL.'),
  model: optionalString,
  llmApiKey: optionalString,
  llmHeaders: stringMap.nullish(),
  thinking: z
    .strictObject({
      enabled: z.boolean().nullish(),
      effort: optionalString,
      budget: z.int().positive().nullish(),
    })
    .nullish(),
  userId: wellFormed(z.string()).nullish(),
  channel: optionalString,
  preferredLanguage: optionalString,
  candidatePresentation: z.enum(['standard', 'rich']).nullish(),
  runMode: z.enum(['normal', 'pipeline']).nullish(),
  pipelineName: optionalString,
  cleanupOnly: z.boolean().nullish(),
  alibabaCloud: alibabaCloudSchema.nullish(),
  /** A guidance run into a live pipeline (docs/protocol.md §6.13); the adapter's own switch, never forwarded. */
  activeGuidance: z.boolean().nullish(),
  guidanceId: optionalToken,
  inputDigest: optionalToken,
  /** Any JSON object; forwarded verbatim, never enforced (docs/protocol.md §10.4). */
  executionFence: z.record(z.string(), z.unknown()).nullish(),
});

export type IacCodeProps = z.infer<typeof iacCodeSchema>;
export type ResumeEntry = z.infer<typeof resumeEntrySchema>;
export type Envelope = z.infer<typeof envelopeSchema>;

/** The cancel extension's body (docs/protocol.md §6.7). */
export const cancelBodySchema = z.looseObject({
  threadId: identity(MAX_ID_LENGTH),
  rosInvocationId: identity(),
});
