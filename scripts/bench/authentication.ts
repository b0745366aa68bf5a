/**
 * What checking a person's token costs (docs/protocol.md §1.2, issue 27): the adapter's
 * authentication of one request whose bearer is a real OIDC access token — RS256, the provider's
 * default signature, issued by a real provider on loopback (oidc-provider, test/support) — with its
 * keys already cached, against the same authentication of a request bearing the shared token (a
 * SHA-256 of each side and a constant-time compare). Both through `authenticate`
 * (lib/http/authenticate.ts) on the same Request objects; alternating pairs, each sample a batch of
 * checks, median per check; the key set must have been fetched exactly once.
 */
import { createLogger } from '../../lib/adapters/logger.js';
import { OidcTokenVerifier } from '../../lib/adapters/oidc/index.js';
import { Secret } from '../../lib/core/secret.js';
import { authenticate } from '../../lib/http/authenticate.js';
import { AUDIENCE, startOidcProvider } from '../../test/support/oidc-provider.js';
import { type Comparison, compare, median, pairedSamples, pairSpread } from './measure.js';

const BATCH = 200;
const PAIRS = 41;

export async function benchAuthentication(): Promise<Comparison> {
  const provider = await startOidcProvider({ alg: 'RS256' });
  try {
    const serviceToken = new Secret('bench-service-token-0123456789abcdef');
    const tokens = new OidcTokenVerifier(
      { issuer: provider.issuer, audiences: [AUDIENCE], clients: undefined, userClaim: 'sub', console: undefined },
      { clock: Date.now, logger: createLogger(() => undefined) },
    );
    const auth = { authToken: serviceToken, tokens };
    const { accessToken } = await provider.tokensFor('alice');
    const person = new Request('http://127.0.0.1/', { method: 'POST', headers: { authorization: `Bearer ${accessToken}` } });
    const service = new Request('http://127.0.0.1/', { method: 'POST', headers: { authorization: `Bearer ${serviceToken.reveal()}` } });
    const batch = (request: Request) => async () => {
      for (let i = 0; i < BATCH; i += 1) await authenticate(request, auth);
    };
    const [jwt, shared] = await pairedSamples(PAIRS, 5, batch(person), batch(service));
    if (tokens.keys.fetches !== 1) throw new Error(`the keys were fetched ${tokens.keys.fetches} times, not once`);
    const perCheck = (samples: number[]) => (median(samples) * 1000) / BATCH;
    return compare(
      'token check per request: OIDC JWT, cached keys',
      'µs',
      perCheck(jwt),
      perCheck(shared),
      `a real RS256 access token of a loopback OIDC provider, its keys fetched once; median of ${PAIRS} alternating pairs of ${BATCH} checks, ${pairSpread(jwt, shared)}; baseline: the shared-token check (SHA-256 of both sides, timingSafeEqual) of the same authenticate()`,
    );
  } finally {
    await provider.close();
  }
}
