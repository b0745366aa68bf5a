/** The identity provider (docs/protocol.md §1.2): one public entry, loaded with the first token that needs it (lib/adapters/lazy-ports.ts). */
export type { ProviderMetadata } from './discovery.js';
export { OidcTokenVerifier } from './token-verifier.js';
