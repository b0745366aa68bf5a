/**
 * `/console/config.json` (lib/http/console-route.ts): whether the adapter wants a bearer token,
 * how the page signs people in when the adapter has an identity provider for it (docs/protocol.md
 * §1.2), and example prompts when the local stack offers them. Fetched once at start.
 */
export interface Example {
  label: string;
  text: string;
  /** What the example shows, in a few words (the introduction lists the examples that have one). */
  description?: string;
  runMode?: 'normal' | 'pipeline';
}

/** The identity provider's sign-in, as the adapter read it from the provider's discovery document. */
export type SignInConfig =
  | {
      issuer: string;
      clientId: string;
      scope: string;
      /** The adapter's audiences: the page sends whichever of its tokens names one. */
      audiences: string[];
      authorizationEndpoint: string;
      tokenEndpoint: string;
      revocationEndpoint?: string;
      endSessionEndpoint?: string;
      idTokenSigningAlgs?: string[];
      issParameterSupported?: boolean;
    }
  | { issuer: string; clientId: string; scope: string; audiences: string[]; unavailable: true };

export interface ConsoleConfig {
  authRequired: boolean;
  examples: Example[];
  signIn?: SignInConfig;
}

export async function loadConsoleConfig(): Promise<ConsoleConfig> {
  const response = await fetch('/console/config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const body = (await response.json()) as { authRequired?: unknown; examples?: unknown; signIn?: unknown };
  const signIn = typeof body.signIn === 'object' && body.signIn !== null ? (body.signIn as SignInConfig) : undefined;
  return { authRequired: body.authRequired === true, examples: Array.isArray(body.examples) ? (body.examples as Example[]) : [], ...(signIn ? { signIn } : {}) };
}
