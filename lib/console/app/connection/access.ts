/**
 * How this page proves itself to the adapter (docs/architecture.md §4.7): the shared token typed
 * into a dialog, or a person signed in with the adapter's identity provider. Either way, when the
 * adapter refuses what was sent, the page asks its Access to get access back; what was refused is
 * sent again once it has (console-app.ts).
 */
import type { Failure } from '../../../client/failures.js';

export interface Access {
  /** The modal that asks for access; nothing else on the page is used while it is open. */
  readonly dialog: HTMLDialogElement;
  /**
   * The adapter refused what was sent. `resend`: the console sends it again once access is back
   * (console-app.ts); its `draft` is the message's text, kept should the page have to go away for it.
   */
  refused(failure: Failure, resend: { draft: string | undefined } | undefined): void;
  /** Said in the status line once the page may talk to the adapter. */
  connectedText(): string;
}
