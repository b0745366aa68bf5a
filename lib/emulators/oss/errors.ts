/**
 * OSS error answers (docs/architecture.md §9.3: XML error bodies). Every failure inside the emulator
 * is an OssError; lib/emulators/oss/reply.ts turns it into the documented shape
 * `<Error><Code/><Message/><RequestId/><HostId/>…extra…<EC/></Error>` so that ali-oss fills
 * `err.code`, `err.status` and `err.requestId` exactly as it does against real OSS.
 *
 * Codes, statuses and messages below are OSS's own, as published in the OSS error-code pages
 * (help.aliyun.com/…/oss/user-guide/<EC>) and seen in real answers quoted in public issues. An EC
 * (fine-grained error code) is given only where the documentation confirms it.
 */

export class OssError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra child elements of <Error>, in order (e.g. Key, BucketName, Header, StringToSign). */
    readonly extra: ReadonlyArray<readonly [string, string]> = [],
    readonly ec?: string,
  ) {
    super(message);
    this.name = 'OssError';
  }
}

export const ossErrors = {
  noSuchBucket: (bucket: string) => new OssError(404, 'NoSuchBucket', 'The specified bucket does not exist.', [['BucketName', bucket]]),
  noSuchKey: (key: string) => new OssError(404, 'NoSuchKey', 'The specified key does not exist.', [['Key', key]]),
  /** Anonymous request against a private bucket (no Authorization header). */
  anonymousDenied: () => new OssError(403, 'AccessDenied', 'You have no right to access this object because of bucket acl.'),
  accessDenied: (message: string) => new OssError(403, 'AccessDenied', message),
  invalidAccessKeyId: (accessKeyId: string, ec?: string) =>
    new OssError(403, 'InvalidAccessKeyId', 'The OSS Access Key Id you provided does not exist in our records.', [['OSSAccessKeyId', accessKeyId]], ec),
  /** Real answer quoted in matrixone/matrixone#12445: 403, this message, EC 0002-00000006. */
  invalidSecurityToken: () => new OssError(403, 'InvalidSecurityToken', 'The security token you provided is invalid.', [], '0002-00000006'),
  /** OSS's answer to an expired STS credential, as quoted in public issues: 403, this message, EC 0002-00000007. */
  securityTokenExpired: () => new OssError(403, 'SecurityTokenExpired', 'The security token you provided has expired.', [], '0002-00000007'),
  signatureDoesNotMatch: (extra: ReadonlyArray<readonly [string, string]>) =>
    new OssError(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.', extra),
  requestTimeTooSkewed: () => new OssError(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.'),
  invalidArgument: (message: string, name?: string, value?: string, ec?: string) =>
    new OssError(
      400,
      'InvalidArgument',
      message,
      name === undefined
        ? []
        : [
            ['ArgumentName', name],
            ['ArgumentValue', value ?? ''],
          ],
      ec,
    ),
  /** OSS EC 0017-00000245: PutObject does not take If-Match/If-None-Match/If-(Un)Modified-Since; HTTP 400. */
  conditionalPutNotImplemented: (header: string) =>
    new OssError(400, 'NotImplemented', 'A header you provided implies functionality that is not implemented.', [['Header', header]], '0017-00000245'),
  /** OSS's 409 table: "The object you specified already exists and can not be overwritten". */
  fileAlreadyExists: () => new OssError(409, 'FileAlreadyExists', 'The object you specified already exists and can not be overwritten.'),
  preconditionFailed: (condition: string) => new OssError(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold.', [['Condition', condition]]),
  invalidDigest: () => new OssError(400, 'InvalidDigest', 'The Content-MD5 you specified is not valid.'),
  /** OSS EC 0016-00000606: DeleteMultipleObjects without Content-MD5. */
  missingContentMd5: () => new OssError(400, 'MissingArgument', 'Missing Some Required Arguments.', [['ArgumentName', 'Content-MD5']], '0016-00000606'),
  malformedXml: () => new OssError(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema.'),
  invalidObjectName: () => new OssError(400, 'InvalidObjectName', 'The specified object is not valid.'),
  methodNotAllowed: () => new OssError(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.'),
  entityTooLarge: () => new OssError(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size.'),
  /** An operation real OSS has but this emulator deliberately does not (it is not in the driver's subset). */
  emulatorUnsupported: (what: string) => new OssError(501, 'NotImplemented', `The OSS emulator does not implement ${what}.`),
} as const;

/** The code and message OSS uses for a bare status, for injected faults (lib/emulators/oss/faults.ts). */
export function faultError(status: number, code?: string): OssError {
  const known: Record<number, readonly [string, string]> = {
    500: ['InternalError', 'We encountered an internal error. Please try again.'],
    502: ['BadGateway', 'The gateway received an invalid response.'],
    503: ['ServiceUnavailable', 'Please reduce your request rate.'],
    504: ['GatewayTimeout', 'The gateway timed out.'],
    403: ['AccessDenied', 'Access denied (injected fault).'],
    404: ['NoSuchKey', 'The specified key does not exist.'],
    409: ['FileAlreadyExists', 'The object you specified already exists and can not be overwritten.'],
  };
  const [defaultCode, message] = known[status] ?? ['InternalError', `Injected fault with status ${status}.`];
  return new OssError(status, code ?? defaultCode, message);
}
