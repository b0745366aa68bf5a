/**
 * What a person can do about a failure, by its code (docs/protocol.md §2): the failure's own
 * message says what happened (the kernel's reason, for a run the kernel failed), this says what to
 * do next. No DOM here.
 */
const STEPS: Record<string, string> = {
  A2A_EXECUTION_FAILED: 'The kernel stopped this run. Send a new message to try again, or change what you asked.',
  A2A_UNAVAILABLE: 'The kernel could not be reached or stopped answering. Wait a moment, then send your message again.',
  A2A_PROTOCOL_ERROR: 'The kernel answered in a way the adapter cannot follow (the adapter’s log has the details). Start a new thread to go on.',
  EXECUTION_LOST: 'The kernel no longer has this run. Send a new message to start again from here.',
  STATE_PERSISTENCE_FAILED: 'The adapter could not save the thread’s state (its log says why). Check its state store, then send your message again.',
  SESSION_BACKUP_NOT_READY: 'The kernel is still restoring this session. Wait a few seconds, then try again.',
  RESUME_PAYLOAD_INVALID: 'Answer the request again: its form is below.',
  UNKNOWN_INTERRUPT: 'The page is asking the adapter what still waits for your answer.',
  INCOMPLETE_RESUME: 'Answer every request shown below; they are sent together.',
  RESUME_ALREADY_APPLIED: 'The page is asking the adapter what still waits for your answer.',
  SERVER_BUSY: 'The adapter is busy. Wait a few seconds, then send your message again.',
  THREAD_BUSY: 'Another run holds this thread (in another tab, perhaps, or one whose page went away). Open it to follow it here, or stop it; then send again.',
  RESUME_REQUIRED: 'This thread waits for your answer to a request: answer it first.',
  THREAD_BINDING_CONFLICT: 'This thread is bound to another working directory. Start a new thread to use this one.',
  STATE_UNAVAILABLE: 'The adapter cannot reach its state store right now. Wait a moment, then try again.',
  UNAUTHORIZED: 'Enter the adapter’s token again.',
  UNREACHABLE: 'Once the adapter is back, send your message again.',
};

/** The next step for a failure's code; a code not listed gets the general one. */
export function nextStepFor(code: string): string {
  return STEPS[code] ?? 'Send a new message to try again.';
}
