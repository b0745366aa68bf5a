/**
 * Prompts the web console offers when the local stack runs the built-in emulator (docs/architecture.md §4.7): one per
 * scenario a person would want to see first, with a few words on what it shows (the console's
 * introduction lists them). The first word picks the scenario (README "Emulator scenarios"); an
 * example names the run mode it needs and the console switches to it. Only the local stack passes
 * them; against a real kernel the console offers none.
 */
export const EMULATOR_CONSOLE_EXAMPLES = [
  { label: 'hello', text: 'hello there, create a VPC template', description: 'a plain turn: streamed text, usage, session ids' },
  { label: 'tools', text: 'tools please: read and lint the template', description: 'tool calls as cards, with progress and results' },
  { label: 'thinking', text: 'thinking about a VPC', description: 'reasoning, folded, then the answer' },
  { label: 'permission', text: 'permission please: run terraform plan', description: 'a tool asks permission to run a command: allow or deny it' },
  { label: 'question', text: 'question please: which network plan?', description: 'a question with options, or your own answer' },
  { label: 'candidates', text: 'candidates please for the architecture', description: 'choose between two architectures' },
  { label: 'resource-selection', text: 'resource-selection for the VPC', description: 'pick a cloud resource (a VPC) by id, or describe it' },
  { label: 'pipeline', text: 'pipeline for a VPC', runMode: 'pipeline' as const, description: 'a pipeline run: a live tree of steps and candidates, and a permission' },
  { label: 'artifact', text: 'artifact please', description: 'a file the agent produced' },
  { label: 'long', text: 'long running task', description: 'a minute of work: stop it with “Stop” or Esc' },
];
