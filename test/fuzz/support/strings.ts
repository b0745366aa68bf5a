/**
 * Strings a hostile or unlucky caller sends as identities, keys and header values: lone UTF-16
 * surrogates (and U+FFFD, which UTF-8 turns them into), NUL and other controls, bidi marks, emoji
 * and combining marks, path pieces, names of Object.prototype members, and lengths around the
 * limits (200-character thread keys, 1,024-character ids).
 */
import fc from 'fast-check';

/** Names that a plain-object lookup would find on Object.prototype (or a thenable would trip on). */
export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'prototype', 'then'] as const;

/** Single code units and short sequences that have broken identity handling somewhere. */
export const EDGE_PIECES = [
  'x',
  'y',
  'A',
  '0',
  '-',
  '_',
  '.',
  '..',
  '/',
  '\\',
  '%',
  '%2F',
  '~',
  ' ',
  '\t',
  '\n',
  '\u0000',
  '\u001f',
  '\u007f',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ufffd',
  '\u200b',
  '\u200e',
  '\u200f',
  '\u202e',
  '\ufeff',
  '\ud83d\ude00',
  'e\u0301',
  '会话',
  'ß',
  'İ',
] as const;

/** One UTF-16 code unit, lone surrogates included (fast-check's own units never produce them). */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));

/** Short strings of edge pieces: collisions between ids that differ only in a surrogate are likely. */
export const edgeString = fc.array(fc.constantFrom(...EDGE_PIECES), { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join(''));

/** Lengths around the limits, in safe lower-case characters or in edge pieces. */
export const longString = fc.oneof(
  fc.integer({ min: 190, max: 215 }).map((length) => 'a'.repeat(length)),
  fc.integer({ min: 1_015, max: 1_035 }).map((length) => 'b'.repeat(length)),
  fc.tuple(fc.integer({ min: 100, max: 2_100 }), fc.constantFrom(...EDGE_PIECES)).map(([length, piece]) => `${'c'.repeat(length)}${piece}`),
);

/** Any identity a caller might send: mostly short and odd, sometimes long, sometimes a prototype name. */
export const identityString = fc.oneof(
  { arbitrary: edgeString, weight: 4 },
  { arbitrary: fc.constantFrom(...PROTOTYPE_NAMES), weight: 2 },
  { arbitrary: fc.stringMatching(/^[a-z0-9_.-]{1,16}$/), weight: 2 },
  { arbitrary: fc.string({ unit: codeUnit, maxLength: 12 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 12 }), weight: 1 },
  { arbitrary: longString, weight: 1 },
  { arbitrary: fc.constant(''), weight: 1 },
);

/** Object keys: ordinary names, prototype names and odd strings. */
export const objectKey = fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.stringMatching(/^[a-zA-Z_]{1,8}$/), edgeString);

/** A header value `new Headers()` accepts: Latin-1 without CR, LF or NUL, no surrounding whitespace. */
const headerUnit = fc.oneof(
  fc.integer({ min: 0x21, max: 0x7e }).map((unit) => String.fromCharCode(unit)),
  fc.constantFrom(' ', '\t', ';', ',', '=', '"', '*', '\u00e9', '\u00ff', '\u0080'),
);
export const headerValue = fc.string({ unit: headerUnit, maxLength: 40 }).map((value) => value.trim());
