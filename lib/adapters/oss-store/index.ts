/**
 * The OSS thread store's public entry: everything outside this folder imports from here.
 * The algorithm (create-only revisions, verify after create, pruning) is in docs/state-store.md;
 * the files beside this one are its parts and are private to the driver.
 */
export { credentialsFromHeaders, type OssCredentials } from './credentials.js';
export { type OssProviderOptions, OssStoreProvider } from './provider.js';
export { type OssStoreOptions, OssThreadStore } from './thread-store.js';
