/**
 * The deployed function as `npm run verify` keeps it: what GetFunction and ListTriggers (FC 3.0,
 * API 2023-03-30) answered, reduced to what the checks need. Environment variables are reduced to
 * their NAMES right here — GetFunction returns the values too (the bearer token among them), and
 * nothing past this point ever holds one (house rule: secrets never reach logs).
 */
import type { FcFunction, FcTrigger } from './fc-api-client.js';

export interface DeployedHook {
  timeout?: number;
}

export interface DeployedTrigger {
  name: string;
  type: string;
  qualifier?: string;
  authType?: string;
  methods: string[];
  urlInternet?: string;
  urlIntranet?: string;
}

export interface DeployedFunction {
  functionName: string;
  functionArn?: string;
  state?: string;
  runtime?: string;
  timeout?: number;
  role?: string;
  port?: number;
  command?: string[];
  args?: string[];
  layers: string[];
  preStop?: DeployedHook;
  initializer?: DeployedHook;
  healthCheckUrl?: string;
  envNames: string[];
  triggers: DeployedTrigger[];
}

function hook(value: { timeout?: number } | undefined): DeployedHook | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value.timeout === 'number' ? { timeout: value.timeout } : {};
}

/** FC 3.0 hands a trigger's configuration over as a JSON string. */
function triggerConfig(raw: string | undefined): { authType?: string; methods?: string[] } {
  if (!raw) return {};
  try {
    const parsed = JSON.parse(raw) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as { authType?: string; methods?: string[] }) : {};
  } catch {
    return {};
  }
}

function trigger(raw: FcTrigger): DeployedTrigger {
  const config = triggerConfig(raw.triggerConfig);
  const result: DeployedTrigger = { name: raw.triggerName ?? '', type: raw.triggerType ?? '', methods: Array.isArray(config.methods) ? config.methods.map(String) : [] };
  if (raw.qualifier) result.qualifier = raw.qualifier;
  if (typeof config.authType === 'string') result.authType = config.authType;
  if (raw.httpTrigger?.urlInternet) result.urlInternet = raw.httpTrigger.urlInternet;
  if (raw.httpTrigger?.urlIntranet) result.urlIntranet = raw.httpTrigger.urlIntranet;
  return result;
}

export function deployedFunction(fn: FcFunction, triggers: FcTrigger[]): DeployedFunction {
  const runtimeConfig = fn.customRuntimeConfig;
  const deployed: DeployedFunction = {
    functionName: fn.functionName ?? '',
    layers: (fn.layers ?? []).map((layer) => layer.arn ?? '').filter((arn) => arn !== ''),
    envNames: Object.keys(fn.environmentVariables ?? {}).sort(),
    triggers: triggers.map(trigger),
  };
  const optional: Partial<DeployedFunction> = {
    functionArn: fn.functionArn,
    state: fn.state,
    runtime: fn.runtime,
    timeout: fn.timeout,
    role: fn.role,
    port: runtimeConfig?.port,
    command: runtimeConfig?.command,
    args: runtimeConfig?.args,
    preStop: hook(fn.instanceLifecycleConfig?.preStop),
    initializer: hook(fn.instanceLifecycleConfig?.initializer),
    healthCheckUrl: runtimeConfig?.healthCheckConfig?.httpGetUrl,
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined && value !== null && value !== '') (deployed as unknown as Record<string, unknown>)[key] = value;
  return deployed;
}
