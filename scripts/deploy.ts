/**
 * `npm run deploy [-- <s arguments>]`: `s deploy` of s.yaml, or of s.domain.yaml when
 * IAC_CODE_AGUI_DOMAIN_NAME is set — extended with the function's optional variables this shell
 * sets, when it sets any (scripts/fc/deploy-command.ts, optional-env.ts; docs/deploy.md). s.yaml's
 * pre-deploy action builds the bundle first.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './build.js';
import { deployCommand, deployEnv, deployFile, deployTemplate } from './fc/deploy-command.js';
import { DEPLOY_DESCRIPTION, deployDescription, optionalEnvSet } from './fc/optional-env.js';

const env = deployEnv(process.env);
const base = deployTemplate(env);
const file = deployFile(env);
const description = join(PROJECT_ROOT, DEPLOY_DESCRIPTION);
if (file === DEPLOY_DESCRIPTION) {
  const domain = base === 's.domain.yaml' ? readFileSync(join(PROJECT_ROOT, base), 'utf8') : undefined;
  writeFileSync(description, deployDescription(env, domain), { mode: 0o600 });
}
const optional = optionalEnvSet(env);
process.stdout.write(
  `deploying ${base}${base === 's.yaml' ? ' (no custom domain: IAC_CODE_AGUI_DOMAIN_NAME is unset)' : ''}` +
    `${optional.length > 0 ? ` with ${optional.join(', ')} (${DEPLOY_DESCRIPTION})` : ' with no optional variable'}\n`,
);
const [program, ...args] = deployCommand(env, PROJECT_ROOT, process.argv.slice(2));
const child = spawn(program as string, args, { cwd: PROJECT_ROOT, stdio: 'inherit', env });
child.once('exit', (code, signal) => {
  rmSync(description, { force: true });
  process.exit(code ?? (signal ? 1 : 0));
});
