/**
 * Prompts the web console offers when the local stack runs the built-in emulator (docs/architecture.md §4.7): one per
 * scenario a person would want to see first. The first word picks the scenario (README "Emulator
 * scenarios"). Only the local stack passes them; against a real kernel the console offers none.
 */
export const EMULATOR_CONSOLE_EXAMPLES = [
  { label: 'hello', text: 'hello there, create a VPC template' },
  { label: 'tools', text: 'tools please: read and lint the template' },
  { label: 'thinking', text: 'thinking about a VPC' },
  { label: 'permission', text: 'permission please: run terraform plan' },
  { label: 'question', text: 'question please: which network plan?' },
  { label: 'candidates', text: 'candidates please for the architecture' },
  { label: 'pipeline', text: 'pipeline for a VPC', runMode: 'pipeline' as const },
  { label: 'artifact', text: 'artifact please' },
  { label: 'long (cancel it)', text: 'long running task' },
];
