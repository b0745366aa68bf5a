/**
 * What an interrupt's card says above its form, in words (docs/protocol.md §5.1): the facts its
 * metadata gives under labels a person reads ("Tool", "Runs", not `toolName`, `effect`), and its
 * message without the list of options the form shows anyway. No DOM here.
 */
import { humanize } from './schema-model.js';
import { selectorFacts } from './selector-facts.js';

type Metadata = Record<string, unknown>;

/** Metadata shown as facts, in this order, with its label. */
const FACT_LABELS: Array<[string, string]> = [
  ['toolName', 'Tool'],
  ['target', 'Target'],
  ['purpose', 'Purpose'],
  ['effect', 'Effect'],
  ['safeSummary', 'Summary'],
  ['deploymentSummary', 'Deployment'],
  ['operation', 'Operation'],
  ['subPipelineId', 'Candidate'],
];

/** A permission's `effect` (the kernel's words for what the tool does). */
const EFFECT_WORDS: Record<string, string> = {
  read: 'reads only',
  cloud_change: 'changes cloud resources',
  local_execution: 'runs a command on the kernel’s machine',
  file_change: 'changes files',
  unknown: 'not known',
};

function primitive(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

export function factsOf(metadata: Metadata): Array<[string, string]> {
  const facts: Array<[string, string]> = [];
  for (const [key, label] of FACT_LABELS) {
    const value = metadata[key];
    if (!primitive(value)) continue;
    const text = String(value);
    // "run_shell: terraform plan" only repeats the tool and the target above it.
    if (key === 'safeSummary' && text === `${metadata['toolName']}: ${metadata['target']}`) continue;
    facts.push([label, key === 'effect' ? (EFFECT_WORDS[text] ?? humanize(text).toLowerCase()) : text]);
  }
  return [...facts, ...selectorFacts(metadata['selector'])];
}

/** The interrupt's message without its lines listing the options (`- plan-a: Plan A`), which the form shows as choices. */
export function messageWithoutOptions(message: string, options: ReadonlyArray<{ id: string; title: string }>): string {
  if (options.length === 0) return message;
  const listed = (line: string) => {
    const item = line.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim();
    return options.some((option) => item === option.title || item === `${option.id}: ${option.title}` || item === option.id);
  };
  const lines = message.split('\n');
  const kept = lines.filter((line) => !listed(line));
  return kept.length === lines.length ? message : kept.join('\n').trim();
}
