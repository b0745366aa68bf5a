/**
 * `npm run verify -- <function> [region] [--no-smoke]`: checks a deployed adapter through the FC 3.0
 * control-plane API (docs/deploy.md "Verify the deployment"). It reads the function (GetFunction)
 * and its triggers (ListTriggers) with @alicloud/fc20230330, prints what is deployed — environment
 * variable names only, never a value —, checks it against s.yaml (runtime, port, timeout, start
 * command, layers, lifecycle hooks, health check, anonymous HTTP trigger and its methods, required
 * environment names), then runs the smoke turn (scripts/smoke.ts) against the trigger's public URL.
 *
 * Environment: ALIBABA_CLOUD_ACCESS_KEY_ID / _SECRET (/ _SECURITY_TOKEN) to read FC;
 * ALIBABA_CLOUD_ACCOUNT_ID or FC_ACCOUNT_ID (else asked of STS); IAC_CODE_AGUI_FC_REGION (default
 * region); IAC_CODE_AGUI_FC_API_ENDPOINT (replaces the FC endpoint, e.g. the FC API emulator);
 * IAC_CODE_AGUI_AUTH_TOKEN (the bearer token for the smoke turn).
 *
 * Exit code: 0 when every check held and the smoke turn ended with RUN_FINISHED; 1 otherwise (a
 * failure to read FC is one line on stderr); 2 for a usage error.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorSummary } from '../lib/core/error-fields.js';
import { runSmoke } from './smoke.js';
import { checkDeployment, httpTriggerOf } from './verify/compare.js';
import { type DeclaredFunction, declaredFunction } from './verify/declared.js';
import { type DeployedFunction, deployedFunction } from './verify/deployed.js';
import { type AliyunCredentials, type ApiEndpoint, credentialsFromEnv, describeApiError, fcApi, resolveFcEndpoint } from './verify/fc-api-client.js';
import { describeChecks, describeDeployment } from './verify/report.js';

const PROJECT_ROOT = join(fileURLToPath(import.meta.url), '..', '..');
const DEFAULT_REGION = 'cn-hangzhou';

export interface VerifyOptions {
  functionName: string;
  region?: string;
  smoke?: boolean;
  env?: Record<string, string | undefined>;
  /** s.yaml to compare with; default the project's. */
  serverlessYaml?: string;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

export async function verify(options: VerifyOptions): Promise<number> {
  const env = options.env ?? process.env;
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = options.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  const region = options.region ?? (env['IAC_CODE_AGUI_FC_REGION'] || DEFAULT_REGION);
  let declared: DeclaredFunction;
  let credentials: AliyunCredentials;
  try {
    declared = declaredFunction(await readFile(options.serverlessYaml ?? join(PROJECT_ROOT, 's.yaml'), 'utf8'), env, region);
    credentials = credentialsFromEnv(env);
  } catch (error) {
    err(`verify: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  let endpoint: ApiEndpoint | undefined;
  let deployed: DeployedFunction;
  try {
    endpoint = await resolveFcEndpoint(env, credentials, region);
    const api = fcApi(credentials, endpoint, region);
    deployed = deployedFunction(await api.getFunction(options.functionName), await api.listTriggers(options.functionName));
  } catch (error) {
    err(`verify: ${describeApiError(error, { functionName: options.functionName, region, endpoint: endpoint ?? { protocol: 'https', host: '(not resolved)' } })}`);
    return 1;
  }

  const checks = checkDeployment(declared, deployed);
  for (const line of describeDeployment(deployed, region, `${endpoint.protocol}://${endpoint.host}`)) out(line);
  for (const line of describeChecks(checks)) out(line);
  const failed = checks.filter((check) => !check.ok).length;

  let smokeOk = true;
  const url = httpTriggerOf(deployed)?.urlInternet;
  if (options.smoke === false) {
    out('Smoke turn: skipped (--no-smoke)');
  } else if (url === undefined) {
    out('Smoke turn: not run (no HTTP trigger with a public URL)');
    smokeOk = false;
  } else {
    out(`Smoke turn against ${url}:`);
    smokeOk = await runSmoke(url, { token: env['IAC_CODE_AGUI_AUTH_TOKEN'] }, (line) => out(`  ${line}`)).catch((error: unknown) => {
      out(`  smoke: FAILED (${errorSummary(error)})`);
      return false;
    });
  }
  const problems = [failed > 0 ? `${failed} check${failed === 1 ? '' : 's'} failed` : '', smokeOk ? '' : 'smoke turn failed'].filter(Boolean);
  out(problems.length === 0 ? 'verify: ok' : `verify: FAILED (${problems.join('; ')})`);
  return problems.length === 0 ? 0 : 1;
}

function parseArgs(args: string[]): VerifyOptions | undefined {
  const positional = args.filter((arg) => !arg.startsWith('--'));
  const unknown = args.filter((arg) => arg.startsWith('--') && arg !== '--no-smoke');
  const [functionName, region] = positional;
  if (!functionName || positional.length > 2 || unknown.length > 0) return undefined;
  return { functionName, ...(region ? { region } : {}), smoke: !args.includes('--no-smoke') };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const options = parseArgs(process.argv.slice(2));
  if (options === undefined) {
    process.stderr.write('usage: npm run verify -- <function name> [region] [--no-smoke]\n');
    process.exit(2);
  }
  verify(options).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`verify: ${errorSummary(error)}\n`);
      process.exit(1);
    },
  );
}
