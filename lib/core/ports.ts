/**
 * The outside world as the core sees it. Each port has adapters in lib/adapters; every vendor
 * error is translated there into the errors below, so nothing in the core knows what ali-oss,
 * node:fs or @a2a-js/sdk throw.
 */
import type { JsonObject, WireSendParams, WireStreamItem, WireTask } from './a2a/wire-types.js';
import type { JournalBatch } from './journal/batch.js';

// ---------------------------------------------------------------------------------------------
// Thread store (docs/architecture.md §3.1): compare-and-swap on one document per thread.

export interface StoredDocument {
  /** The stored JSON, not yet validated (a corrupt document fails validation in the core). */
  document: unknown;
  /** Monotonic per thread, starting at 1 for the first save. */
  revision: number;
}

/**
 * Which thread a driver reads or writes (docs/protocol.md §6.11): a thread id of the shared namespace
 * (services; every key as before), or a thread id in a person's namespace. Drivers turn it into their
 * names with `storageKey` (lib/core/thread/thread-address.ts); the core hands a driver only ids, through
 * the namespace's view of the store (`threadStoreFor`).
 */
export type ThreadRef = string | { readonly threadId: string; readonly namespace: string };

export interface ThreadStore {
  readonly kind: 'file' | 'oss' | 'memory';
  /** Reads only this thread. Undefined when the thread has never been saved. */
  load(thread: ThreadRef): Promise<StoredDocument | undefined>;
  /**
   * Saves `document` as revision `expected + 1` (expected 0 = create). Throws a StoreError of kind
   * `conflict` (StoreConflictError) when the current revision is not `expected`. A save whose
   * answer was lost is recognised on retry as the caller's own (drivers keep a writer nonce),
   * never reported as a conflict. Every other failure is a StoreError too.
   */
  save(thread: ThreadRef, document: unknown, expected: number): Promise<number>;
  /**
   * Optional: the last revision of this thread this process saw committed, without a request — it
   * may be stale. compareAndSwap (docs/architecture.md §3.4) may decide a write from it, because
   * the save proves it current or fails with a conflict; a refusal or a decision to write nothing
   * is never taken from it, only from a load.
   */
  cached?(thread: ThreadRef): StoredDocument | undefined;
  /** The event journal beside the thread documents, on the same storage (docs/protocol.md §6.15). */
  readonly journal?: EventJournal;
}

/** Where the journal's batches of one execution sort: epoch, then the first seq (0: a takeover's fork point). */
export interface BatchKey {
  epoch: number;
  firstSeq: number;
}

/**
 * What the sweeper (docs/protocol.md §6.15) must look at again at `dueAt`: a detached run whose
 * grace ends, or a journal to delete.
 */
export interface DueEntry {
  kind: 'detached' | 'expire';
  threadId: string;
  /** The person's namespace the thread lives in (docs/protocol.md §6.11); absent for the shared one. */
  namespace?: string;
  executionId: string;
  /** Epoch milliseconds. */
  dueAt: number;
}

/**
 * Per execution, the batches of events its producers emitted (docs/state-store.md "The event
 * journal"), and the due list of the sweeper. Batches are created once and never changed; a failed
 * call is a StoreError. Never holds a secret (docs/protocol.md §6.10): events only.
 */
export interface EventJournal {
  /** Writes one batch; a batch with the same key already there is a StoreError `conflict`. */
  append(thread: ThreadRef, batch: JournalBatch): Promise<void>;
  /** The execution's batches after `after` (all of them without it), ordered by key; [] when none. */
  read(thread: ThreadRef, executionId: string, after?: BatchKey): Promise<JournalBatch[]>;
  /**
   * Deletes the execution's batches (idempotent): every one, or — `throughEpoch` — those of that
   * epoch and before, so that a run admitted since the caller looked keeps its own.
   */
  remove(thread: ThreadRef, executionId: string, throughEpoch?: number): Promise<void>;
  /** Adds a due entry; `replacing` (the same kind and execution, an earlier dueAt) is removed after. */
  schedule(entry: DueEntry, replacing?: DueEntry): Promise<void>;
  unschedule(entry: DueEntry): Promise<void>;
  /** Due entries with dueAt ≤ now, earliest first, at most `limit`; an entry that names no thread is deleted, not returned. */
  due(now: number, limit: number): Promise<DueEntry[]>;
}

/**
 * Every store failure, one family (docs/architecture.md §3, §5): callers check
 * `error instanceof StoreError` and read `kind`, never a driver's class.
 *
 * - `conflict`     another writer got there first: re-read and re-decide (compareAndSwap does).
 * - `unavailable`  the store could not be read or written (I/O, network, permissions, timeouts,
 *                  or a thread that kept changing through every compare-and-swap attempt).
 * - `corrupt`      the stored bytes are not a valid document of this thread.
 *
 * The subclasses below are the names drivers throw and tests expect; each fixes its kind.
 */
export type StoreErrorKind = 'conflict' | 'unavailable' | 'corrupt';

export class StoreError extends Error {
  constructor(
    readonly kind: StoreErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}

export class StoreConflictError extends StoreError {
  constructor(message = 'The thread document changed concurrently.') {
    super('conflict', message);
    this.name = 'StoreConflictError';
  }
}

export class StoreUnavailableError extends StoreError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', message, options);
    this.name = 'StoreUnavailableError';
  }
}

export class StoreCorruptError extends StoreError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('corrupt', message, options);
    this.name = 'StoreCorruptError';
  }
}

// ---------------------------------------------------------------------------------------------
// A2A kernel (docs/protocol.md §7.1): JSON-RPC methods and the two iac-code HTTP endpoints.

export interface KernelCallOptions {
  signal?: AbortSignal;
  /**
   * Streams only: called once with the first task id the stream names, as soon as its bytes
   * arrive and before the event is parsed — so a stream that fails on its first event still tells
   * the run which task the kernel started, and the run can cancel it (docs/protocol.md §2.4).
   */
  onTaskId?: (taskId: string) => void;
}

export interface A2AKernel {
  sendStreamingMessage(params: WireSendParams, options?: KernelCallOptions): AsyncIterable<WireStreamItem>;
  sendMessage(params: WireSendParams, options?: KernelCallOptions): Promise<WireStreamItem>;
  getTask(taskId: string, historyLength: number, options?: KernelCallOptions): Promise<WireTask>;
  cancelTask(taskId: string, options?: KernelCallOptions): Promise<void>;
  subscribeToTask(taskId: string, options?: KernelCallOptions): AsyncIterable<WireStreamItem>;
  /**
   * ListTasks of one A2A context, every page (at most `maxTasks` tasks), newest first as a2a-sdk
   * orders them; undefined when the kernel has no ListTasks (JSON-RPC "method not found").
   */
  listTasks(contextId: string, historyLength: number, maxTasks: number, options?: KernelCallOptions): Promise<WireTask[] | undefined>;
  /** POST /iac-code/session/ensure-restored (docs/protocol.md §7.8). */
  ensureSessionRestored(request: { cwd: string; sessionId: string; taskId: string }, options?: KernelCallOptions): Promise<SessionRestoreResult>;
  /** GET /iac-code/pipeline/state; undefined when the kernel answers 404. */
  pipelineState(taskId: string, afterSequence: number, options?: KernelCallOptions): Promise<JsonObject | undefined>;
}

export type SessionRestoreResult = { outcome: 'ok'; status: string } | { outcome: 'missing' } | { outcome: 'unsupported' } | { outcome: 'backupNotReady' };

/** The kernel could not be reached or answered outside the protocol (HTTP error, network). */
export class KernelUnavailableError extends Error {
  /** The HTTP status the kernel answered with, when it answered at all (logged, docs/architecture.md §5). */
  readonly status: number | undefined;

  constructor(message: string, options?: { cause?: unknown; status?: number }) {
    super(message, { cause: options?.cause });
    this.name = 'KernelUnavailableError';
    this.status = options?.status;
  }
}

/** The kernel answered with a JSON-RPC error object. */
export class KernelRpcError extends Error {
  constructor(
    message: string,
    readonly rpcCode: number | undefined,
    readonly data: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'KernelRpcError';
  }
}

// ---------------------------------------------------------------------------------------------
// Images (docs/protocol.md §3.4, docs/architecture.md §4.6): the downsampling rules live in the
// core (lib/core/protocol/image-downsample.ts); decoding and encoding pixels are a library's.

/** What the core accepts from an image library: the four formats the kernel takes, and TIFF (re-encoded as PNG). */
export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp' | 'tiff';

export interface ImageInfo {
  format: ImageFormat;
  /** Of the first frame, as stored (no EXIF orientation applied). */
  width: number;
  height: number;
}

/**
 * A re-encoding of the first frame, shrunk to fit `fit`×`fit` when given (aspect kept, never
 * enlarged, Lanczos). PNG is written with maximum compression; JPEG as RGB (alpha dropped) with
 * optimised Huffman tables and no metadata.
 */
export type ImageEncoding = { format: 'png'; fit?: number } | { format: 'jpeg'; quality: number; fit: number };

export interface ImageCodec {
  /** Reads the header: format and dimensions. ImageDecodeError when the bytes are no image this port takes. */
  inspect(bytes: Uint8Array): Promise<ImageInfo>;
  /** Decodes every pixel of the first frame. ImageDecodeError when the image is truncated or corrupt. */
  verify(bytes: Uint8Array): Promise<void>;
  /** Decodes and re-encodes. ImageDecodeError when the image cannot be decoded. */
  encode(bytes: Uint8Array, encoding: ImageEncoding): Promise<Uint8Array>;
}

/** The bytes are not an image the adapter can decode: the caller's fault, INVALID_INPUT before the stream. */
export class ImageDecodeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ImageDecodeError';
  }
}

// ---------------------------------------------------------------------------------------------
// Logging: structured fields only; secrets never reach a logger (see lib/adapters/logger.ts).
// An error goes in as `errorFields(error)` (lib/core/error-fields.ts; docs/architecture.md §5).

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

// ---------------------------------------------------------------------------------------------
// The identity provider (docs/protocol.md §1.2): a person's bearer token (an OIDC JWT), checked.
// The adapter (lib/adapters/oidc) translates what its JWT library throws into the two errors below.

/** Why a token was refused: stable names, answered to the caller (`error.reason`) and logged. */
export const TOKEN_REFUSALS = [
  'token_malformed',
  'token_expired',
  'token_not_yet_valid',
  'token_wrong_issuer',
  'token_wrong_audience',
  'token_algorithm_refused',
  'token_key_missing',
  'token_key_unknown',
  'token_signature_invalid',
  'token_client_refused',
  'token_user_claim_missing',
  'token_claims_invalid',
] as const;

export type TokenRefusal = (typeof TOKEN_REFUSALS)[number];

export interface VerifiedToken {
  /** The configured claim (IAC_CODE_AGUI_OIDC_USER_CLAIM, `sub` by default). */
  userId: string;
}

export interface TokenVerifier {
  /** TokenRefusedError when the token is not one of the provider's for this adapter; IdentityProviderUnavailableError when that cannot be told. */
  verify(token: string): Promise<VerifiedToken>;
}

/** The token is refused (401): never carries the token, nor its claims. */
export class TokenRefusedError extends Error {
  constructor(
    readonly reason: TokenRefusal,
    message: string = reason,
  ) {
    super(message);
    this.name = 'TokenRefusedError';
  }
}

/** The provider's discovery document or keys could not be read, so the token can be neither accepted nor refused (503). */
export class IdentityProviderUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IdentityProviderUnavailableError';
  }
}
