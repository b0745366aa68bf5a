/**
 * Headers and raw bytes under fuzzing (docs/protocol.md §1.2, §1.3, §1.6): Content-Type variants and
 * charsets, Authorization forms, Accept-Language garbage, and bodies that are not UTF-8, not JSON,
 * truncated, bit-flipped or bracket bombs. Known-good and known-bad header forms must get exactly
 * the answer the protocol gives them; anything else must at least keep the invariants.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Language, translate } from '../../lib/core/i18n/catalogue.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { sendInProcess, useFuzzStack } from './support/fuzz-stack.js';
import { fuzzParameters, runsFor, timeoutFor } from './support/settings.js';
import { headerValue } from './support/strings.js';

const TOKEN = 'fuzz-token-1';
const fuzz = useFuzzStack({ config: { authToken: TOKEN } });

function validBody(): string {
  return JSON.stringify(runBody({ threadId: uniqueId('headers'), text: 'complete é 会话' }));
}

/** A header value and whether the protocol accepts it (undefined: garbage, only the invariants apply). */
type Tagged = { value: string | undefined; ok: boolean | undefined };
const known = (ok: boolean, ...values: Array<string | undefined>) => fc.constantFrom(...values).map((value): Tagged => ({ value, ok }));
const garbage = headerValue.map((value): Tagged => ({ value, ok: undefined }));

const contentType = fc.oneof(
  known(
    true,
    'application/json',
    'Application/JSON; charset=utf-8',
    'application/json;charset=UTF8',
    'application/json; charset="utf-8"',
    'application/json; foo=bar',
    'application/json ; charset=unicode-1-1-utf-8',
  ),
  known(
    false,
    'text/plain',
    'application/json-patch+json',
    'application/jsonx',
    'application/json; charset=iso-8859-1',
    'application/json; charset="utf-16"',
    'application/json; charset=',
    'application/json; charset=nope',
    'json',
  ),
  garbage,
);
const authorization = fc.oneof(
  known(true, `Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER ${TOKEN}  `, `BeArEr   ${TOKEN}`),
  known(false, undefined, '', 'Bearer', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, TOKEN, `Bearer${TOKEN}`, `Token ${TOKEN}`),
  garbage,
);
/** Accept-Language and the language an error must then be in (undefined: not asserted). */
const acceptLanguage = fc.oneof(
  fc.constantFrom<[string | undefined, Language]>(
    [undefined, 'en'],
    ['de-DE', 'de'],
    ['zh;q=0.5, ja;q=0.9', 'ja'],
    ['xx, fr;q=0.1', 'fr'],
    ['ja;q=abc, pt', 'pt'],
    ['*', 'en'],
    ['es;q=1.5', 'en'],
  ),
  headerValue.map((value): [string | undefined, Language | undefined] => [value, undefined]),
);

describe('fuzzed headers', () => {
  it(
    'authenticates, checks the media type and charset, and speaks the Accept-Language, in that order',
    async () => {
      await fc.assert(
        fc.asyncProperty(authorization, contentType, acceptLanguage, fc.option(headerValue, { nil: undefined }), async (auth, type, [language, expectedLanguage], accept) => {
          const headers: Record<string, string> = {};
          if (auth.value !== undefined) headers['authorization'] = auth.value;
          headers['content-type'] = type.value ?? '';
          if (language !== undefined) headers['accept-language'] = language;
          if (accept !== undefined) headers['accept'] = accept;
          const answer = await sendInProcess(fuzz.stack, { body: validBody(), headers });
          if (auth.ok === false) expect(answer.kind === 'refused' && answer.code).toBe('UNAUTHORIZED');
          if (auth.ok === true && type.ok === false) expect(answer.kind === 'refused' && answer.code).toBe('UNSUPPORTED_MEDIA_TYPE');
          if (auth.ok === true && type.ok === true) expect(answer.kind === 'stream' && answer.last.type).toBe('RUN_FINISHED');
          if (answer.kind === 'stream') expect(auth.ok).not.toBe(false);
          if (answer.kind === 'refused' && expectedLanguage && answer.code === 'UNAUTHORIZED') expect(answer.message).toBe(translate('unauthorized', expectedLanguage));
        }),
        fuzzParameters(),
      );
    },
    timeoutFor(runsFor(), 300),
  );
});

const encoder = new TextEncoder();
/** Byte sequences no UTF-8 decoder may accept: a lone continuation, overlong forms, encoded surrogates, 0xFF. */
const INVALID_UTF8 = [[0x80], [0xc3, 0x28], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xff], [0xf0, 0x9f, 0x98]];

const rawBody = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  // Invalid UTF-8 inside a string of an otherwise valid body.
  fc.tuple(fc.constantFrom(...INVALID_UTF8), fc.nat()).map(([bad, at]) => {
    const text = validBody();
    const inside = text.indexOf('complete') + (at % 8);
    return Uint8Array.from([...encoder.encode(text.slice(0, inside)), ...bad, ...encoder.encode(text.slice(inside))]);
  }),
  // Truncated anywhere.
  fc.nat().map((at) => {
    const bytes = encoder.encode(validBody());
    return bytes.slice(0, at % bytes.length);
  }),
  // A few bytes flipped.
  fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }).map((flips) => {
    const bytes = encoder.encode(validBody());
    for (const [at, mask] of flips) bytes[at % bytes.length]! ^= mask;
    return bytes;
  }),
  // A byte-order mark, then a valid body.
  fc.constant(null).map(() => Uint8Array.from([0xef, 0xbb, 0xbf, ...encoder.encode(validBody())])),
  // Bracket bombs, closed or not.
  fc
    .tuple(fc.integer({ min: 200, max: 2_000_000 }), fc.boolean(), fc.constantFrom('[', '{"a":'))
    .map(([levels, closed, open]) => encoder.encode(`${open.repeat(levels)}${closed ? `1${(open === '[' ? ']' : '}').repeat(levels)}` : ''}`)),
);

describe('fuzzed bytes', () => {
  it(
    'refuses what is not UTF-8 JSON as INVALID_JSON or INVALID_INPUT, never a 5xx',
    async () => {
      await fc.assert(
        fc.asyncProperty(rawBody, async (bytes) => {
          const answer = await sendInProcess(fuzz.stack, { body: bytes, headers: { authorization: `Bearer ${TOKEN}` } });
          if (answer.kind === 'refused') expect(['INVALID_JSON', 'INVALID_INPUT', 'REQUEST_TOO_LARGE']).toContain(answer.code);
        }),
        fuzzParameters(),
      );
    },
    timeoutFor(runsFor(), 300),
  );
});
