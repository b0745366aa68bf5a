/**
 * The FC 3.0 resources the emulator serves, in the API's own JSON shapes (API 2023-03-30 "Function"
 * and "Trigger" data structures; @alicloud/fc20230330 models Function, Trigger, HTTPTrigger):
 * fields are camelCase; a trigger's `triggerConfig` travels as a JSON *string*; an HTTP trigger
 * carries `httpTrigger: {urlInternet, urlIntranet}` (the trigger's public and VPC URLs).
 *
 * Tests seed functions with whatever GetFunction should answer — including environment variable
 * values, as FC returns them — so that a client's handling of the real shape is what gets tested.
 */

export interface FcLifecycleHook {
  handler?: string;
  command?: string[];
  timeout?: number;
}

/** A function as GetFunction returns it (only the fields the project reads are typed). */
export interface FcFunctionSeed {
  functionName: string;
  runtime: string;
  timeout?: number;
  role?: string;
  handler?: string;
  memorySize?: number;
  cpu?: number;
  instanceConcurrency?: number;
  layers?: Array<{ arn: string; size?: number }>;
  customRuntimeConfig?: {
    command?: string[];
    args?: string[];
    port?: number;
    healthCheckConfig?: {
      httpGetUrl?: string;
      initialDelaySeconds?: number;
      periodSeconds?: number;
      timeoutSeconds?: number;
      failureThreshold?: number;
      successThreshold?: number;
    };
  };
  instanceLifecycleConfig?: { initializer?: FcLifecycleHook; preStop?: FcLifecycleHook };
  environmentVariables?: Record<string, string>;
  triggers?: FcTriggerSeed[];
  [field: string]: unknown;
}

export interface FcTriggerSeed {
  triggerName: string;
  triggerType: string;
  qualifier?: string;
  /** An object here; served as FC serves it, JSON-encoded into a string. */
  triggerConfig: Record<string, unknown>;
  /** For HTTP triggers: the URLs FC assigned (tests point urlInternet at a local adapter). */
  urlInternet?: string;
  urlIntranet?: string;
}

export interface FcAccount {
  accountId: string;
  region: string;
}

export function functionArn(account: FcAccount, functionName: string): string {
  return `acs:fc:${account.region}:${account.accountId}:functions/${functionName}`;
}

export function renderFunction(account: FcAccount, seed: FcFunctionSeed): Record<string, unknown> {
  const { triggers: _triggers, ...fields } = seed;
  return {
    functionId: `fn-${Buffer.from(seed.functionName).toString('hex').slice(0, 16)}`,
    functionArn: functionArn(account, seed.functionName),
    state: 'Active',
    lastUpdateStatus: 'Successful',
    createdTime: '2026-01-01T00:00:00Z',
    lastModifiedTime: '2026-01-01T00:00:00Z',
    ...fields,
  };
}

export function renderTrigger(account: FcAccount, functionName: string, seed: FcTriggerSeed): Record<string, unknown> {
  const arn = functionArn(account, functionName);
  const trigger: Record<string, unknown> = {
    triggerId: `tr-${Buffer.from(`${functionName}/${seed.triggerName}`).toString('hex').slice(0, 16)}`,
    triggerName: seed.triggerName,
    triggerType: seed.triggerType,
    qualifier: seed.qualifier ?? 'LATEST',
    triggerConfig: JSON.stringify(seed.triggerConfig),
    targetArn: arn,
    status: 'Success',
    createdTime: '2026-01-01T00:00:00Z',
    lastModifiedTime: '2026-01-01T00:00:00Z',
  };
  if (seed.triggerType === 'http') trigger['httpTrigger'] = { urlInternet: seed.urlInternet ?? '', urlIntranet: seed.urlIntranet ?? '' };
  return trigger;
}
