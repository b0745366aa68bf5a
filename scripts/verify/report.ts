/**
 * The readable report of `npm run verify`: the deployed function (environment variable names only —
 * DeployedFunction never holds a value), then one line per check against s.yaml.
 */
import type { Check } from './compare.js';
import type { DeployedFunction, DeployedHook } from './deployed.js';

function hook(value: DeployedHook | undefined): string {
  if (value === undefined) return '(none)';
  return value.timeout === undefined ? 'configured' : `configured, timeout ${value.timeout} s`;
}

export function describeDeployment(deployed: DeployedFunction, region: string, apiUrl: string): string[] {
  const start = [...(deployed.command ?? []), ...(deployed.args ?? [])].join(' ');
  const lines = [
    `FC 3.0 function ${deployed.functionName} in ${region} (FC API ${apiUrl})`,
    `  arn           ${deployed.functionArn ?? '(unknown)'}`,
    `  state         ${deployed.state ?? '(unknown)'}`,
    `  runtime       ${deployed.runtime ?? '(none)'}`,
    `  timeout       ${deployed.timeout ?? '(none)'} s`,
    `  role          ${deployed.role ?? '(none)'}`,
    `  start         ${start || '(none)'} (port ${deployed.port ?? '?'})`,
    `  layers        ${deployed.layers.length > 0 ? deployed.layers.join(', ') : '(none)'}`,
    `  preStop       ${hook(deployed.preStop)}`,
    `  initializer   ${hook(deployed.initializer)}`,
    `  health check  ${deployed.healthCheckUrl ? `GET ${deployed.healthCheckUrl}` : '(none)'}`,
    `  environment   ${deployed.envNames.length} names, values not shown: ${deployed.envNames.join(', ') || '(none)'}`,
  ];
  if (deployed.triggers.length === 0) lines.push('  triggers      (none)');
  for (const trigger of deployed.triggers) {
    const detail = [trigger.type, trigger.authType, trigger.methods.join(' ')].filter(Boolean).join(', ');
    lines.push(`  trigger       ${trigger.name} (${detail}) ${trigger.urlInternet ?? ''}`.trimEnd());
  }
  return lines;
}

export function describeChecks(checks: readonly Check[]): string[] {
  const width = Math.max(...checks.map((check) => check.label.length));
  return ['Checks against s.yaml:', ...checks.map((check) => `  ${check.ok ? 'ok  ' : 'FAIL'}  ${check.label.padEnd(width)}  ${check.detail}`)];
}
