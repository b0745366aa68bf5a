/**
 * Checks every protected route makes before reading a body (docs/protocol.md §1.2, §1.3): who is
 * asking (authenticate.ts: the shared token, or a person's JWT), JSON content type, and a body read
 * within its size limit and deadline (read-body.ts) that must decode as JSON — all of them at once,
 * in order, through readProtectedJson.
 */
import type { Caller } from '../core/caller.js';
import { AdapterError } from '../core/errors.js';
import type { AppConfig } from './app.js';
import { type Authentication, authenticate } from './authenticate.js';
import { parseJsonBody } from './json-body.js';
import { type BodyLimits, DEFAULT_BODY_TIMEOUT_MS, readBody } from './read-body.js';

/**
 * `application/json`, parameters allowed; a `charset` parameter must name UTF-8 (docs/protocol.md
 * §1.3): the body is always decoded as UTF-8, so another charset would be misread, not converted.
 * Charset labels are resolved as the WHATWG Encoding standard does (TextDecoder: `utf8`,
 * `unicode-1-1-utf-8`, … are UTF-8; an unknown label is not).
 */
export function checkJsonContentType(request: Request): void {
  const [mediaType, ...parameters] = (request.headers.get('content-type') ?? '').split(';');
  if (mediaType?.trim().toLowerCase() !== 'application/json') throw new AdapterError('UNSUPPORTED_MEDIA_TYPE', 'unsupportedMediaType');
  for (const parameter of parameters) {
    const equals = parameter.indexOf('=');
    if (equals < 0 || parameter.slice(0, equals).trim().toLowerCase() !== 'charset') continue;
    const label = parameter
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (!isUtf8Label(label)) throw new AdapterError('UNSUPPORTED_MEDIA_TYPE', 'unsupportedCharset');
  }
}

function isUtf8Label(label: string): boolean {
  try {
    return new TextDecoder(label).encoding === 'utf-8';
  } catch {
    return false;
  }
}

/** A protected route's request once its checks passed: who asked, and the parsed body. */
export interface ProtectedJson {
  caller: Caller;
  body: unknown;
}

/**
 * The checks every protected JSON route makes before it looks at its body, in the order of
 * docs/protocol.md §1.3 (steps 2–6): who is asking, content type, the body within its size limit
 * and the body deadline, UTF-8, nesting, JSON.
 */
export async function readProtectedJson(
  request: Request,
  deps: { config: Pick<AppConfig, 'authToken' | 'bodyTimeoutMs'>; tokens?: Authentication['tokens'] },
  body: Omit<BodyLimits, 'timeoutMs'>,
): Promise<ProtectedJson> {
  const caller = await authenticate(request, { authToken: deps.config.authToken, tokens: deps.tokens });
  checkJsonContentType(request);
  // Depth first, then JSON.parse: the scan is linear and refuses what would make parsing or the
  // digest recurse too deep (docs/protocol.md §1.4).
  return { caller, body: parseJsonBody(await readBody(request, { ...body, timeoutMs: deps.config.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS })) };
}
