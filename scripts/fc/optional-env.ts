/**
 * The function's optional variables (docs/deploy.md step 5): s.yaml leaves them out, because an
 * unset one would otherwise render as an empty value and whether the FC API takes those is
 * undocumented. `npm run deploy` adds each one the deploying shell sets, non-empty, through a
 * description of its own that extends s.yaml (`deployDescription`) — as `${env('NAME')}`, so no
 * value is ever written to a file. `npm run verify` accepts them as present or absent.
 */
import { parse, stringify } from 'yaml';

type Env = Record<string, string | undefined>;

/** Every one has a default in the adapter (docs/protocol.md §9.1) or means "off" when absent. */
export const OPTIONAL_FUNCTION_ENV = [
  'IAC_CODE_AGUI_A2A_TOKEN',
  'IAC_CODE_AGUI_A2A_ALLOW_INSECURE',
  'IAC_CODE_AGUI_ALLOWED_CWDS',
  'IAC_CODE_AGUI_OSS_ENDPOINT',
  'IAC_CODE_AGUI_CORS_ORIGINS',
  'IAC_CODE_AGUI_BODY_TIMEOUT_MS',
  'IAC_CODE_AGUI_MAX_ACTIVE_RUNS',
  'IAC_CODE_AGUI_SHUTDOWN_DRAIN_MS',
  'IAC_CODE_AGUI_SHUTDOWN_CLEANUP_MS',
  // People signed in with an identity provider (docs/protocol.md §1.2, docs/deploy.md step 10);
  // the shared token stays required for services (ROS, a BFF).
  'IAC_CODE_AGUI_OIDC_ISSUER',
  'IAC_CODE_AGUI_OIDC_AUDIENCE',
  'IAC_CODE_AGUI_OIDC_CLIENTS',
  'IAC_CODE_AGUI_OIDC_USER_CLAIM',
  'IAC_CODE_AGUI_OIDC_CONSOLE_CLIENT_ID',
  'IAC_CODE_AGUI_OIDC_CONSOLE_SCOPE',
  // The web console (off in FC unless set): with the console client above it signs people in.
  'IAC_CODE_AGUI_CONSOLE',
] as const;

/** The description `npm run deploy` writes when the shell sets an optional variable (git-ignored). */
export const DEPLOY_DESCRIPTION = 's.deploy.yaml';

/** The optional variables the deploying shell sets to something. */
export function optionalEnvSet(env: Env): string[] {
  return OPTIONAL_FUNCTION_ENV.filter((name) => (env[name] ?? '') !== '');
}

/**
 * The text of the description to deploy when `optionalEnvSet(env)` is not empty: s.yaml extended
 * with those variables (each `${env('NAME')}`), plus — when a domain is deployed — the resources of
 * s.domain.yaml as they are written there (Serverless Devs follows one `extend`, not a chain).
 */
export function deployDescription(env: Env, domainYaml: string | undefined): string {
  const environmentVariables = Object.fromEntries(optionalEnvSet(env).map((name) => [name, `\${env('${name}')}`]));
  const domain = domainYaml === undefined ? {} : ((parse(domainYaml) as { resources?: Record<string, unknown> }).resources ?? {});
  const description = { extend: 's.yaml', resources: { agui: { props: { environmentVariables } }, ...domain } };
  return [
    `# Written by \`npm run deploy\` (scripts/fc/optional-env.ts): s.yaml${domainYaml === undefined ? '' : " and s.domain.yaml's domain"} plus`,
    '# the optional variables this shell set. Names only: every value is read from the environment.',
    stringify(description, { lineWidth: 0 }),
  ].join('\n');
}
