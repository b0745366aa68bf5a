/**
 * `npm run start:oss` (SPEC §7): the local stack of `npm start` on the OSS driver, against a
 * freshly started local OSS emulator — whatever IAC_CODE_AGUI_OSS_ENDPOINT this shell may have.
 * Everything else (A2A kernel, port, bucket, prefix, region) is configured as for `npm start`.
 */
process.env['IAC_CODE_AGUI_STATE_STORE'] = 'oss';
delete process.env['IAC_CODE_AGUI_OSS_ENDPOINT'];
await import('./start-local.js');
