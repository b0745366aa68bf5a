/**
 * The FC 3.0 control plane as `npm run verify` reads it, through the official SDK
 * @alicloud/fc20230330 (API 2023-03-30; @alicloud/fc2 speaks FC 2.0's service-scoped API and
 * cannot address an FC 3.0 function — docs/deploy.md, appendix). Requests are signed with
 * ACS3-HMAC-SHA256 by @alicloud/openapi-core.
 *
 * Credentials come only from ALIBABA_CLOUD_ACCESS_KEY_ID / _SECRET (/ _SECURITY_TOKEN) and are
 * handed to the SDK explicitly: its default credential chain would otherwise go looking in files
 * and in the ECS metadata service. The endpoint is `<accountId>.<region>.fc.aliyuncs.com` (FC 3.0
 * "Endpoints"); the account id comes from ALIBABA_CLOUD_ACCOUNT_ID or FC_ACCOUNT_ID, else from STS
 * GetCallerIdentity, which needs no permission. IAC_CODE_AGUI_FC_API_ENDPOINT replaces the whole
 * endpoint (a test points it at lib/emulators/fc-api).
 */
import * as fc20230330 from '@alicloud/fc20230330';
import * as openapiCore from '@alicloud/openapi-core';

export class VerifyError extends Error {
  override name = 'VerifyError';
}

export interface AliyunCredentials {
  accessKeyId: string;
  accessKeySecret: string;
  securityToken?: string;
}

export interface ApiEndpoint {
  protocol: 'https' | 'http';
  /** host[:port] */
  host: string;
}

type Env = Record<string, string | undefined>;

/**
 * A CommonJS module's default-exported class, however the loader presents the namespace: Node's
 * ESM loader nests it (`ns.default.default`), Vite's interop does not (`ns.default`).
 */
function cjsDefault<T>(namespace: object): T {
  let value: unknown = namespace;
  while (typeof value === 'object' && value !== null && 'default' in value) value = (value as { default: unknown }).default;
  return value as T;
}
const FcClient = cjsDefault<typeof fc20230330.default.default>(fc20230330);
const OpenApiClient = cjsDefault<typeof openapiCore.default.default>(openapiCore);
const { $OpenApiUtil } = openapiCore;

export function credentialsFromEnv(env: Env): AliyunCredentials {
  const accessKeyId = env['ALIBABA_CLOUD_ACCESS_KEY_ID'];
  const accessKeySecret = env['ALIBABA_CLOUD_ACCESS_KEY_SECRET'];
  if (!accessKeyId || !accessKeySecret) {
    throw new VerifyError(
      'no Alibaba Cloud credentials: set ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET (and ALIBABA_CLOUD_SECURITY_TOKEN for STS credentials)',
    );
  }
  const securityToken = env['ALIBABA_CLOUD_SECURITY_TOKEN'];
  return securityToken ? { accessKeyId, accessKeySecret, securityToken } : { accessKeyId, accessKeySecret };
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** `https://host[:port]`, `http://127.0.0.1:port` (loopback only: the answers carry env values) or a bare host. */
export function parseEndpoint(value: string, variable: string): ApiEndpoint {
  const url = new URL(/^[a-z]+:\/\//i.test(value) ? value : `https://${value}`);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new VerifyError(`${variable} must be an https URL or a host name`);
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) throw new VerifyError(`${variable}: plain http is allowed for a loopback address only`);
  if (url.pathname !== '/' || url.search !== '') throw new VerifyError(`${variable} must name a host, not a path`);
  return { protocol: url.protocol === 'http:' ? 'http' : 'https', host: url.host };
}

export function fcEndpoint(accountId: string, region: string): ApiEndpoint {
  return { protocol: 'https', host: `${accountId}.${region}.fc.aliyuncs.com` };
}

export const STS_ENDPOINT: ApiEndpoint = { protocol: 'https', host: 'sts.aliyuncs.com' };

function sdkConfig(credentials: AliyunCredentials, endpoint: ApiEndpoint, region: string) {
  return new $OpenApiUtil.Config({
    ...credentials,
    endpoint: endpoint.host,
    protocol: endpoint.protocol,
    regionId: region,
    readTimeout: 20_000,
    connectTimeout: 10_000,
  });
}

/** STS GetCallerIdentity (API 2015-04-01, RPC style): the account id behind the credentials. */
export async function discoverAccountId(credentials: AliyunCredentials, endpoint: ApiEndpoint = STS_ENDPOINT): Promise<string> {
  const client = new OpenApiClient(sdkConfig(credentials, endpoint, 'cn-hangzhou'));
  const params = new $OpenApiUtil.Params({
    action: 'GetCallerIdentity',
    version: '2015-04-01',
    protocol: 'HTTPS',
    pathname: '/',
    method: 'POST',
    authType: 'AK',
    style: 'RPC',
    reqBodyType: 'formData',
    bodyType: 'json',
  });
  // No runtime options: the client's own timeouts apply (a plain object is what the SDK reads).
  const runtime = {} as Parameters<typeof client.callApi>[2];
  const response = (await client.callApi(params, new $OpenApiUtil.OpenApiRequest({}), runtime)) as { body?: { AccountId?: string } };
  const accountId = response.body?.AccountId;
  if (!accountId) throw new VerifyError('STS GetCallerIdentity answered without an AccountId');
  return accountId;
}

/** The FC endpoint to use: the override, else the account's regional endpoint. */
export async function resolveFcEndpoint(env: Env, credentials: AliyunCredentials, region: string): Promise<ApiEndpoint> {
  const override = env['IAC_CODE_AGUI_FC_API_ENDPOINT'];
  if (override) return parseEndpoint(override, 'IAC_CODE_AGUI_FC_API_ENDPOINT');
  const accountId = env['ALIBABA_CLOUD_ACCOUNT_ID'] || env['FC_ACCOUNT_ID'] || (await discoverAccountId(credentials));
  if (!/^\d+$/.test(accountId)) throw new VerifyError('the account id (ALIBABA_CLOUD_ACCOUNT_ID / FC_ACCOUNT_ID) must be digits only');
  return fcEndpoint(accountId, region);
}

export type FcFunction = InstanceType<typeof fc20230330.Function>;
export type FcTrigger = InstanceType<typeof fc20230330.Trigger>;

export interface FcApi {
  getFunction(functionName: string): Promise<FcFunction>;
  /** Every trigger of the function (ListTriggers, following nextToken). */
  listTriggers(functionName: string): Promise<FcTrigger[]>;
}

export function fcApi(credentials: AliyunCredentials, endpoint: ApiEndpoint, region: string): FcApi {
  const client = new FcClient(sdkConfig(credentials, endpoint, region));
  return {
    async getFunction(functionName) {
      const response = await client.getFunction(functionName, new fc20230330.GetFunctionRequest({}));
      if (!response.body) throw new VerifyError(`GetFunction answered without a body for ${functionName}`);
      return response.body;
    },
    async listTriggers(functionName) {
      const triggers: FcTrigger[] = [];
      let nextToken: string | undefined;
      for (let page = 0; page < 50; page += 1) {
        const response = await client.listTriggers(functionName, new fc20230330.ListTriggersRequest({ limit: 100, ...(nextToken ? { nextToken } : {}) }));
        triggers.push(...(response.body?.triggers ?? []));
        nextToken = response.body?.nextToken;
        if (!nextToken) return triggers;
      }
      throw new VerifyError(`ListTriggers kept answering nextToken for ${functionName}`);
    },
  };
}

interface SdkError {
  code?: string;
  statusCode?: number;
  requestId?: string;
  data?: { Message?: string; message?: string };
  message?: string;
}

/** One line for a failure while talking to FC; never includes a credential (the SDK's messages carry none). */
export function describeApiError(error: unknown, context: { functionName: string; region: string; endpoint: ApiEndpoint }): string {
  if (error instanceof VerifyError) return error.message;
  const sdk = error as SdkError;
  const fcMessage = sdk.data?.Message ?? sdk.data?.message;
  const requestId = sdk.requestId && sdk.requestId !== 'undefined' ? ` (request id ${sdk.requestId})` : '';
  if (sdk.statusCode === undefined) {
    // No HTTP answer at all: a connection, DNS or TLS failure (Node's error code, e.g. ECONNREFUSED).
    return `cannot reach the FC API at ${context.endpoint.protocol}://${context.endpoint.host}: ${sdk.code ?? sdk.message ?? String(error)}`;
  }
  switch (sdk.code) {
    case 'FunctionNotFound':
      return `function '${context.functionName}' does not exist in ${context.region} (FC: FunctionNotFound)${requestId}`;
    case 'AccessDenied':
      return `access denied: ${fcMessage ?? 'these credentials may not read the function'} — the caller needs fc:GetFunction and fc:ListTriggers${requestId}`;
    case 'SignatureNotMatch':
    case 'InvalidAccessKeyID':
    case 'InvalidSecurityToken':
      return `FC rejected the credentials (${sdk.code}): check ALIBABA_CLOUD_ACCESS_KEY_ID, ALIBABA_CLOUD_ACCESS_KEY_SECRET and ALIBABA_CLOUD_SECURITY_TOKEN${requestId}`;
    default:
      return `FC answered ${sdk.statusCode} ${sdk.code ?? ''}: ${fcMessage ?? sdk.message ?? ''}${requestId}`;
  }
}
