/**
 * What s.yaml declares for the adapter's function, as `npm run verify` compares it with the
 * deployment: runtime, port, timeout, start command, layers, lifecycle hooks, health check, the
 * HTTP trigger's auth type and methods, and which environment variable names must be present.
 *
 * s.yaml is read with the `yaml` library rather than rendered by `s preview` (scripts/local-fc.ts):
 * the person verifying need not hold every deploy-time secret that rendering requires. Serverless
 * Devs expressions are resolved only where a comparison needs a value: `${vars.region}` is the
 * region being verified, another `${vars.NAME}` the variable as s.yaml defines it (resolved in
 * turn), `${env('NAME', 'default')}` reads the environment or falls back.
 *
 * Environment names: every variable s.yaml lists (`${env('NAME')}`, which s refuses to render
 * without, a non-empty default, or a literal) must be present; the optional ones `npm run deploy`
 * adds only when the deploying shell sets them (scripts/fc/optional-env.ts) — and any written as
 * `${env('NAME', '')}` — may be absent.
 */
import { parse } from 'yaml';
import { OPTIONAL_FUNCTION_ENV } from '../fc/optional-env.js';

export interface DeclaredHook {
  timeout?: number;
}

export interface DeclaredFunction {
  runtime: string;
  timeout?: number;
  port?: number;
  command?: string[];
  args?: string[];
  layers: string[];
  preStop?: DeclaredHook;
  initializer?: DeclaredHook;
  healthCheckUrl?: string;
  trigger?: { authType?: string; methods: string[] };
  requiredEnv: string[];
  optionalEnv: string[];
}

type Env = Record<string, string | undefined>;
type Node = Record<string, unknown>;

const OPTIONAL_ENV = /^\$\{env\(\s*['"][A-Za-z_][A-Za-z0-9_]*['"]\s*,\s*(''|"")\s*\)\}$/;

function asNode(value: unknown): Node | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Node) : undefined;
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.map(String) : undefined;
}

function hook(value: unknown): DeclaredHook | undefined {
  const node = asNode(value);
  if (node === undefined) return undefined;
  return typeof node['timeout'] === 'number' ? { timeout: node['timeout'] } : {};
}

/**
 * Resolves `${vars.region}` (the region verified), `${vars.NAME}` (from `vars`, resolved in turn) and
 * `${env('NAME'[, 'default'])}`; leaves anything else as written.
 */
export function resolveExpressions(text: string, env: Env, region: string, vars: Node = {}): string {
  return text
    .replace(/\$\{vars\.([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
      if (name === 'region') return region;
      const value = vars[name];
      return typeof value === 'string' ? resolveExpressions(value, env, region, { ...vars, [name]: undefined }) : whole;
    })
    .replace(/\$\{env\(\s*'([A-Za-z_][A-Za-z0-9_]*)'\s*(?:,\s*'([^']*)'\s*)?\)\}/g, (whole, name: string, fallback: string | undefined) => env[name] || (fallback ?? whole));
}

/** The single fc3 resource of s.yaml (this project deploys one function). */
export function declaredFunction(yamlText: string, env: Env, region: string): DeclaredFunction {
  const document = asNode(parse(yamlText));
  const resources = asNode(document?.['resources']) ?? {};
  const fc3 = Object.values(resources)
    .map(asNode)
    .filter((resource) => resource?.['component'] === 'fc3');
  if (fc3.length !== 1) throw new Error(`s.yaml must define exactly one fc3 resource (found ${fc3.length})`);
  const props = asNode(fc3[0]?.['props']) ?? {};
  const vars = asNode(document?.['vars']) ?? {};
  const runtimeConfig = asNode(props['customRuntimeConfig']) ?? {};
  const lifecycle = asNode(props['instanceLifecycleConfig']) ?? {};
  const healthCheck = asNode(runtimeConfig['healthCheckConfig']);
  const httpTrigger = (Array.isArray(props['triggers']) ? props['triggers'] : []).map(asNode).find((trigger) => trigger?.['triggerType'] === 'http');
  const triggerConfig = asNode(httpTrigger?.['triggerConfig']) ?? {};
  const environment = asNode(props['environmentVariables']) ?? {};
  const names = Object.keys(environment);
  const emptyByDefault = names.filter((name) => OPTIONAL_ENV.test(String(environment[name]).trim()));
  const requiredEnv = names.filter((name) => !emptyByDefault.includes(name));
  const optionalEnv = [...new Set([...emptyByDefault, ...OPTIONAL_FUNCTION_ENV])].filter((name) => !requiredEnv.includes(name));

  const declared: DeclaredFunction = {
    runtime: resolveExpressions(String(props['runtime'] ?? ''), env, region, vars),
    layers: (strings(props['layers']) ?? []).map((layer) => resolveExpressions(layer, env, region, vars)),
    requiredEnv,
    optionalEnv,
  };
  if (typeof props['timeout'] === 'number') declared.timeout = props['timeout'];
  if (typeof runtimeConfig['port'] === 'number') declared.port = runtimeConfig['port'];
  const command = strings(runtimeConfig['command']);
  if (command) declared.command = command;
  const args = strings(runtimeConfig['args']);
  if (args) declared.args = args;
  const preStop = hook(lifecycle['preStop']);
  if (preStop) declared.preStop = preStop;
  const initializer = hook(lifecycle['initializer']);
  if (initializer) declared.initializer = initializer;
  if (typeof healthCheck?.['httpGetUrl'] === 'string') declared.healthCheckUrl = healthCheck['httpGetUrl'];
  if (httpTrigger) {
    declared.trigger = { methods: strings(triggerConfig['methods']) ?? [] };
    if (typeof triggerConfig['authType'] === 'string') declared.trigger.authType = triggerConfig['authType'];
  }
  return declared;
}
