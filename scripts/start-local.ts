/**
 * `npm start` (README "The two commands"): the adapter on 127.0.0.1:8000 with the file store — or
 * the OSS driver when IAC_CODE_AGUI_STATE_STORE=oss — and, unless IAC_CODE_AGUI_A2A_URL points at
 * a real kernel, the built-in iac-code A2A emulator (scripts/local-stack.ts).
 */
import { startLocalStack } from './local-stack.js';

await startLocalStack(process.env);
