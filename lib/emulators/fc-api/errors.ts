/**
 * FC 3.0 control-plane error answers, as the FC API emulator gives them. FC 3.0 (API 2023-03-30)
 * answers an error with HTTP status and a JSON body `{"Code", "Message", "RequestId"}` (FC
 * "Error" data structure, api-fc-2023-03-30-struct-error; example Code `FunctionNotFound`,
 * RequestId `1-64e70cf1-5cbef92ea8fc8c42899cf5d1`); @alicloud/openapi-core reads `Code`/`Message`/
 * `RequestId` from it into a ClientError (code, statusCode, message).
 *
 * Codes and messages are FC's published ones (FC "Error codes" and api-fc-2023-03-30-errorcodes):
 * 403 SignatureNotMatch, 403 InvalidAccessKeyID, 403 AccessDenied, 400 MissingRequiredHeader,
 * 400 InvalidArgument, 400 PathNotSupported, 404 FunctionNotFound "function '%s' does not
 * exist.". Three are this emulator's own, because FC documents none for the case: 403
 * InvalidSecurityToken (an STS credential without its token, or with a wrong one), 403
 * RequestTimeTooSkewed (x-acs-date more than the V3 signature's 15 minutes away) and 404
 * TriggerNotFound. The brief's `SignatureDoesNotMatch` is the generic POP/OSS spelling; FC's
 * documented code is `SignatureNotMatch`.
 */
import { randomBytes } from 'node:crypto';

export class FcApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'FcApiError';
  }
}

export const fcApiErrors = {
  missingHeader: (name: string) => new FcApiError(400, 'MissingRequiredHeader', `required HTTP header ${name} was not specified`),
  invalidArgument: (message: string) => new FcApiError(400, 'InvalidArgument', message),
  pathNotSupported: (method: string, path: string) => new FcApiError(400, 'PathNotSupported', `'${method}' against '${path}' is not supported`),
  signatureNotMatch: () =>
    new FcApiError(403, 'SignatureNotMatch', 'The request signature we calculated does not match the signature you provided. Check your access key and signing method'),
  invalidAccessKeyId: (accessKeyId: string) => new FcApiError(403, 'InvalidAccessKeyID', `invalid access key ID '${accessKeyId}'`),
  invalidSecurityToken: () => new FcApiError(403, 'InvalidSecurityToken', 'the security token you provided is invalid'),
  requestTimeTooSkewed: () => new FcApiError(403, 'RequestTimeTooSkewed', 'the difference between the request time (x-acs-date) and the server time is more than 15 minutes'),
  /** The wording of FC's real AccessDenied answers ("the caller is not authorized to perform 'fc:…' on resource '…'"). */
  accessDenied: (action: string, resource: string) => new FcApiError(403, 'AccessDenied', `the caller is not authorized to perform 'fc:${action}' on resource '${resource}'`),
  functionNotFound: (name: string) => new FcApiError(404, 'FunctionNotFound', `function '${name}' does not exist.`),
  triggerNotFound: (functionName: string, triggerName: string) => new FcApiError(404, 'TriggerNotFound', `trigger '${triggerName}' of function '${functionName}' does not exist.`),
} as const;

/** `1-<8 hex>-<24 hex>`: the shape of FC 3.0 request ids. */
export function newFcRequestId(): string {
  return `1-${randomBytes(4).toString('hex')}-${randomBytes(12).toString('hex')}`;
}

export function errorBody(error: FcApiError, requestId: string): string {
  return JSON.stringify({ Code: error.code, Message: error.message, RequestId: requestId });
}
