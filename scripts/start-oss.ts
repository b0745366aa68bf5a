/**
 * `npm run start:oss` (README "Other commands"): the local stack of `npm start` on the OSS driver,
 * against a freshly started local OSS emulator — whatever IAC_CODE_AGUI_OSS_ENDPOINT this shell may
 * have. Everything else (A2A kernel, port, bucket, prefix, region) is configured as for `npm start`.
 */
import { startLocalStack } from './local-stack.js';

await startLocalStack({ ...process.env, IAC_CODE_AGUI_STATE_STORE: 'oss', IAC_CODE_AGUI_OSS_ENDPOINT: undefined });
