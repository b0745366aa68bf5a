/**
 * The deployment checked against s.yaml (docs/deploy.md "Verify the deployment"). Each check is one
 * line of the report: what was expected, what FC holds, and whether they agree. Pure: no I/O.
 */
import type { DeclaredFunction } from './declared.js';
import type { DeployedFunction, DeployedTrigger } from './deployed.js';

export interface Check {
  ok: boolean;
  label: string;
  detail: string;
}

/** FC's default for a function without an explicit timeout; far too short for an SSE stream. */
const FC_DEFAULT_TIMEOUT_S = 3;

function list(values: readonly string[] | undefined): string {
  return values && values.length > 0 ? values.join(' ') : '(none)';
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}

function check(ok: boolean, label: string, detail: string): Check {
  return { ok, label, detail };
}

/** The HTTP trigger the report and the smoke turn use: the one with a public URL, else the first. */
export function httpTriggerOf(deployed: DeployedFunction): DeployedTrigger | undefined {
  const http = deployed.triggers.filter((trigger) => trigger.type === 'http');
  return http.find((trigger) => trigger.urlInternet) ?? http[0];
}

function hookCheck(label: string, declared: { timeout?: number } | undefined, deployed: { timeout?: number } | undefined): Check | undefined {
  if (declared === undefined) return undefined;
  if (deployed === undefined) return check(false, label, `s.yaml configures it (timeout ${declared.timeout ?? '?'} s); the function has none`);
  const ok = declared.timeout === undefined || declared.timeout === deployed.timeout;
  return check(ok, label, `timeout ${deployed.timeout ?? '?'} s${ok ? '' : `, s.yaml ${declared.timeout} s`}`);
}

export function checkDeployment(declared: DeclaredFunction, deployed: DeployedFunction): Check[] {
  const checks: Check[] = [];
  checks.push(
    check(
      deployed.runtime === declared.runtime,
      'runtime',
      deployed.runtime === declared.runtime ? String(deployed.runtime) : `deployed ${deployed.runtime ?? '(none)'}, s.yaml ${declared.runtime}`,
    ),
  );
  if (declared.port !== undefined) {
    checks.push(
      check(deployed.port === declared.port, 'port', deployed.port === declared.port ? String(deployed.port) : `deployed ${deployed.port ?? '(none)'}, s.yaml ${declared.port}`),
    );
  }
  const timeoutLongEnough = (deployed.timeout ?? 0) > FC_DEFAULT_TIMEOUT_S;
  const timeoutAsDeclared = declared.timeout === undefined || deployed.timeout === declared.timeout;
  checks.push(
    check(
      timeoutLongEnough && timeoutAsDeclared,
      'timeout',
      `${deployed.timeout ?? '(none)'} s${timeoutAsDeclared ? '' : `, s.yaml ${declared.timeout} s`}${timeoutLongEnough ? '' : ` — must exceed FC's ${FC_DEFAULT_TIMEOUT_S} s default or every stream is cut`}`,
    ),
  );
  if (declared.command !== undefined || declared.args !== undefined) {
    const ok = sameList(deployed.command, declared.command) && sameList(deployed.args, declared.args);
    const detail = `${list(deployed.command)} ${list(deployed.args)}`;
    checks.push(check(ok, 'start command', ok ? detail : `deployed ${detail}, s.yaml ${list(declared.command)} ${list(declared.args)}`));
  }
  if (declared.layers.length > 0) {
    const missing = declared.layers.filter((layer) => !deployed.layers.includes(layer));
    checks.push(check(missing.length === 0, 'layers', missing.length === 0 ? list(deployed.layers) : `missing ${missing.join(', ')} (deployed: ${list(deployed.layers)})`));
  }
  const preStop = hookCheck('preStop hook', declared.preStop, deployed.preStop);
  if (preStop) checks.push(preStop);
  const initializer = hookCheck('initializer hook', declared.initializer, deployed.initializer);
  if (initializer) checks.push(initializer);
  if (declared.healthCheckUrl !== undefined) {
    const ok = deployed.healthCheckUrl === declared.healthCheckUrl;
    checks.push(check(ok, 'health check', ok ? `GET ${deployed.healthCheckUrl}` : `deployed ${deployed.healthCheckUrl ?? '(none)'}, s.yaml ${declared.healthCheckUrl}`));
  }
  checks.push(check(Boolean(deployed.role), 'role', deployed.role ?? 'none — the OSS store gets no credentials'));

  if (declared.trigger !== undefined) {
    const trigger = httpTriggerOf(deployed);
    if (trigger === undefined) {
      checks.push(check(false, 'HTTP trigger', 'the function has no HTTP trigger'));
    } else {
      const authOk = declared.trigger.authType === undefined || trigger.authType === declared.trigger.authType;
      checks.push(check(authOk, 'trigger auth', authOk ? String(trigger.authType) : `deployed ${trigger.authType ?? '(none)'}, s.yaml ${declared.trigger.authType}`));
      const want = [...declared.trigger.methods].map((method) => method.toUpperCase()).sort();
      const have = [...trigger.methods].map((method) => method.toUpperCase()).sort();
      const methodsOk = sameList(want, have);
      checks.push(check(methodsOk, 'trigger methods', methodsOk ? list(have) : `deployed ${list(have)}, s.yaml ${list(want)}`));
      checks.push(check(Boolean(trigger.urlInternet), 'trigger URL', trigger.urlInternet ?? 'no public URL (disableURLInternet?)'));
    }
  }

  const missing = declared.requiredEnv.filter((name) => !deployed.envNames.includes(name));
  checks.push(check(missing.length === 0, 'environment names', missing.length === 0 ? `all ${declared.requiredEnv.length} required present` : `missing ${missing.join(', ')}`));
  return checks;
}
