import { describe, expect, it } from 'vitest';
import { CATALOGUES, LANGUAGES } from '../../lib/core/i18n/catalogue.js';
import { languageFromAcceptLanguage, normaliseLanguage, preferredLanguageOf } from '../../lib/core/i18n/language.js';

describe('language resolution (docs/protocol.md §1.6)', () => {
  it.each([
    ['ja-JP, en;q=0.5', 'ja'],
    ['zh;q=0, en;q=0.2, ja;q=1', 'ja'],
    ['en;q=0.2, zh-CN;q=1', 'zh'],
    ['fr-CA;q=0.8, de;q=0.8', 'fr'],
    ['xx, pt-BR;q=0.1', 'pt'],
    ['es;q=abc, de;q=0.3', 'de'],
    ['es;q=1.5, de;q=0.3', 'de'],
    ['*', 'en'],
    ['', 'en'],
    ['klingon', 'en'],
  ])('Accept-Language %j → %s', (header, expected) => {
    expect(languageFromAcceptLanguage(header, 'en')).toBe(expected);
  });

  it('uses the server default for * and for nothing usable', () => {
    expect(languageFromAcceptLanguage('*', 'de')).toBe('de');
    expect(languageFromAcceptLanguage(undefined, 'ja')).toBe('ja');
  });

  it('normalises tags and ignores unsupported ones', () => {
    expect(normaliseLanguage(' ZH_cn ')).toBe('zh');
    expect(normaliseLanguage('it')).toBeUndefined();
    expect(normaliseLanguage(42)).toBeUndefined();
  });

  it('reads preferredLanguage from an otherwise invalid body', () => {
    expect(preferredLanguageOf({ forwardedProps: { iacCode: { preferredLanguage: 'es-ES' } } })).toBe('es');
    expect(preferredLanguageOf({ forwardedProps: { iacCode: { preferredLanguage: 'xx' } } })).toBeUndefined();
    expect(preferredLanguageOf([1])).toBeUndefined();
  });
});

describe('catalogues', () => {
  it('translate every message into all seven languages', () => {
    const keys = Object.keys(CATALOGUES.en);
    for (const language of LANGUAGES) {
      for (const key of keys) {
        const text = CATALOGUES[language][key as keyof typeof CATALOGUES.en];
        expect(text, `${language}.${key}`).toMatch(/\S/);
        if (language !== 'en' && !['permissionRequired', 'inputRequired'].includes(key))
          expect(text, `${language}.${key} untranslated`).not.toBe(CATALOGUES.en[key as keyof typeof CATALOGUES.en]);
      }
    }
  });
});
