/**
 * zod's English messages for every schema of the core. The core uses `zod/mini` — the same zod,
 * whose functional API lets the bundler keep only what is used (issue 13: the function bundle,
 * docs/architecture.md §1.1) — which, unlike the full `zod`, loads no messages by itself: without
 * this, every issue would read "Invalid input". The field issues of docs/protocol.md §2.2 carry
 * these messages. Imported for its effect by every module that defines a schema.
 */
import { en } from 'zod/locales';
import { config } from 'zod/mini';

config(en());
