/**
 * Which description file `npm run deploy` deploys (docs/deploy.md, "A production domain"):
 * s.domain.yaml — the function plus its custom domain — when IAC_CODE_AGUI_DOMAIN_NAME is set,
 * else s.yaml. Serverless Devs has no conditional resources, so the choice of file is the switch,
 * and a deployment without the variable never renders a domain.
 */
import { join } from 'node:path';

type Env = Record<string, string | undefined>;

export function deployTemplate(env: Env): 's.yaml' | 's.domain.yaml' {
  return env['IAC_CODE_AGUI_DOMAIN_NAME'] ? 's.domain.yaml' : 's.yaml';
}

/** `s deploy -y -t <file>` plus the caller's extra arguments (e.g. `-a <alias>`). */
export function deployCommand(env: Env, root: string, extraArgs: readonly string[] = []): string[] {
  return [join(root, 'node_modules', '.bin', 's'), 'deploy', '-y', '-t', deployTemplate(env), ...extraArgs];
}
