/**
 * `npm run deploy [-- <s arguments>]`: `s deploy` of s.yaml, or of s.domain.yaml when
 * IAC_CODE_AGUI_DOMAIN_NAME is set (scripts/fc/deploy-command.ts, docs/deploy.md). s.yaml's
 * pre-deploy action builds the bundle first.
 */
import { spawn } from 'node:child_process';
import { PROJECT_ROOT } from './build.js';
import { deployCommand, deployTemplate } from './fc/deploy-command.js';

const [program, ...args] = deployCommand(process.env, PROJECT_ROOT, process.argv.slice(2));
process.stdout.write(`deploying ${deployTemplate(process.env)}${deployTemplate(process.env) === 's.yaml' ? ' (no custom domain: IAC_CODE_AGUI_DOMAIN_NAME is unset)' : ''}\n`);
const child = spawn(program as string, args, { cwd: PROJECT_ROOT, stdio: 'inherit' });
child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
