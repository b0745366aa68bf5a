/**
 * Citations of the project's own documents resolve (docs/architecture.md §9.5): every
 * `protocol.md §N.M` / `architecture.md §N.M` in the code and the docs — and every bare `§N.M` inside
 * those two documents, which cites the document itself — names a section that exists, so a renumbered
 * or missing section fails here instead of leaving a comment pointing nowhere — and no file cites
 * the specification or contract this project was built from, which a maintainer does not have.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const CITED_DOCS = ['protocol.md', 'architecture.md'] as const;
type CitedDoc = (typeof CITED_DOCS)[number];

/** `§6.6`, `§6.6, §6.8`, `§1–§4`: the section list after a document name or on its own. */
const SECTION_LIST = String.raw`§\d+(?:\.\d+)?(?:\s*–\s*§?\d+(?:\.\d+)?)?(?:,\s*§\d+(?:\.\d+)?(?:\s*–\s*§?\d+(?:\.\d+)?)?)*`;
const PREFIXED = new RegExp(String.raw`(protocol|architecture)\.md\)?\s+(${SECTION_LIST})`, 'g');
const BARE = new RegExp(SECTION_LIST, 'g');

function sectionsOf(doc: CitedDoc): Set<string> {
  const sections = new Set<string>();
  for (const line of readFileSync(join(ROOT, 'docs', doc), 'utf8').split('\n')) {
    const heading = /^#{2,3} (\d+(?:\.\d+)?)\.? /.exec(line);
    if (heading?.[1]) sections.add(heading[1]);
  }
  return sections;
}

function numbersIn(list: string): string[] {
  return [...list.matchAll(/§?(\d+(?:\.\d+)?)/g)].map((match) => match[1] as string);
}

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|md|ya?ml)$/.test(name)) files.push(path);
    }
  };
  for (const dir of ['lib', 'functions', 'scripts', 'test', 'docs']) walk(join(ROOT, dir));
  return [...files, join(ROOT, 'README.md'), join(ROOT, 's.yaml')];
}

interface Citation {
  where: string;
  doc: CitedDoc;
  section: string;
}

function citations(): Citation[] {
  const found: Citation[] = [];
  for (const file of sourceFiles()) {
    const text = readFileSync(file, 'utf8');
    const where = relative(ROOT, file);
    for (const match of text.matchAll(PREFIXED)) {
      for (const section of numbersIn(match[2] as string)) found.push({ where, doc: `${match[1]}.md` as CitedDoc, section });
    }
    const self = CITED_DOCS.find((doc) => where === `docs/${doc}`);
    if (!self) continue;
    // Inside a cited document a bare § cites the document itself, once the prefixed citations are gone.
    const bare = text.replace(PREFIXED, '').replace(/(SPEC|contract(-2)?) §\S+/g, '');
    for (const match of bare.matchAll(BARE)) for (const section of numbersIn(match[0])) found.push({ where, doc: self, section });
  }
  return found;
}

describe('citations of docs/protocol.md and docs/architecture.md', () => {
  it('name sections that exist', () => {
    const sections = { 'protocol.md': sectionsOf('protocol.md'), 'architecture.md': sectionsOf('architecture.md') };
    const all = citations();
    // The scan really finds citations (both documents cite each other), so an empty pass proves nothing.
    expect(all.filter((citation) => citation.doc === 'protocol.md').length).toBeGreaterThan(50);
    expect(all.filter((citation) => citation.doc === 'architecture.md').length).toBeGreaterThan(20);
    const dangling = all.filter((citation) => !sections[citation.doc].has(citation.section)).map((c) => `${c.where}: ${c.doc} §${c.section}`);
    expect(dangling).toEqual([]);
  });

  it('are the only documents the code cites: nothing cites the specification or the peer contract, which are not in this repository', () => {
    const outside = /\b(SPEC|contract(-2)?) §|SPEC\.md|iac-code-contract/;
    const offenders = sourceFiles()
      .filter((file) => !file.endsWith('doc-citations.test.ts'))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .map((line, index) => ({ where: `${relative(ROOT, file)}:${index + 1}`, line }))
          .filter(({ line }) => outside.test(line)),
      )
      .map(({ where }) => where);
    expect(offenders).toEqual([]);
  });

  it('keep the ten numbered top-level sections of each document that other work cites', () => {
    for (const doc of CITED_DOCS) {
      const top = [...sectionsOf(doc)].filter((section) => !section.includes('.'));
      expect(top).toEqual(doc === 'protocol.md' ? ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'] : ['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    }
  });
});
