/**
 * What `npm run deploy` deploys (docs/deploy.md, "A production domain", step 5):
 * s.domain.yaml — the function plus its custom domain — when IAC_CODE_AGUI_DOMAIN_NAME is set,
 * else s.yaml. Serverless Devs has no conditional resources, so the choice of file is the switch,
 * and a deployment without the variable never renders a domain. When the shell sets optional
 * variables of the function, a description of its own extends that choice with them
 * (optional-env.ts); otherwise the chosen file is deployed as it is.
 */
import { join } from 'node:path';
import { DEPLOY_DESCRIPTION, optionalEnvSet } from './optional-env.js';

type Env = Record<string, string | undefined>;

export function deployTemplate(env: Env): 's.yaml' | 's.domain.yaml' {
  return env['IAC_CODE_AGUI_DOMAIN_NAME'] ? 's.domain.yaml' : 's.yaml';
}

/** The file `s deploy` is given: the written description when optional variables are set, else deployTemplate's. */
export function deployFile(env: Env): string {
  return optionalEnvSet(env).length > 0 ? DEPLOY_DESCRIPTION : deployTemplate(env);
}

/** `s deploy -y -t <file>` plus the caller's extra arguments (e.g. `-a <alias>`). */
export function deployCommand(env: Env, root: string, extraArgs: readonly string[] = []): string[] {
  return [join(root, 'node_modules', '.bin', 's'), 'deploy', '-y', '-t', deployFile(env), ...extraArgs];
}

/**
 * The environment `s` deploys with: the shell's, without its empty variables — `${env('NAME',
 * 'default')}` would render an empty value as it is, and no variable of the function may be empty.
 */
export function deployEnv(env: Env): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
}
