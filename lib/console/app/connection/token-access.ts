/** Access by the shared token typed into the token dialog (docs/architecture.md §4.7): for an adapter without a sign-in. */

import type { Failure } from '../../../client/failures.js';
import type { TokenDialog } from '../ui/token-dialog.js';
import type { Access } from './access.js';
import { readToken } from './session-token.js';

export class TokenAccess implements Access {
  readonly dialog: HTMLDialogElement;

  constructor(private readonly tokenDialog: TokenDialog) {
    this.dialog = tokenDialog.root;
  }

  refused(failure: Failure, resend: { draft: string | undefined } | undefined): void {
    const again = resend ? ' What you sent is sent again as soon as you connect.' : '';
    this.tokenDialog.open(`The adapter refused the token (${failure.code}). Enter it again.${again}`);
  }

  connectedText(): string {
    return readToken() ? 'Connected with a token (kept in this tab only).' : 'Connected.';
  }
}
