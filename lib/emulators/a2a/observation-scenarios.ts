/**
 * Scenarios for reading a task the reader did not start (docs/protocol.md §5.6, §6.14): a task
 * watched by SubscribeToTask observers while its owner streams, and a prompt answer whose stream
 * ends while the task works on (docs/protocol.md §5.6). Both wait for their SubscribeToTask streams
 * before going on, so what each reader sees does not depend on timing. The second word of the
 * message picks how the task ends.
 */
import type { EmulatorControls } from './executor.js';
import { awaited, candidateSelectionInput, permissionInput, questionInput } from './inputs.js';
import type { Scenario } from './scenarios.js';
import type { ReceivedAnswer, TaskScript } from './task-script.js';

async function words(script: TaskScript, sentence: string): Promise<void> {
  for (const word of sentence.split(/(?<= )/)) {
    script.text(word);
    await script.pause(3);
  }
}

function secondWord(text: string): string {
  return text.trim().split(/\s+/)[1]?.toLowerCase() ?? '';
}

function answerText(answer: ReceivedAnswer): string {
  return answer.kind === 'text' ? answer.text : answer.decision;
}

/** Asks through `input` + INPUT_REQUIRED and waits for the answer; the task works on after it. */
async function ask(script: TaskScript, input: Record<string, unknown>, kind: string): Promise<ReceivedAnswer> {
  script.exposed = { input };
  script.status('INPUT_REQUIRED', { input });
  const answer = await script.awaitAnswer(awaited(input));
  script.exposed = {};
  script.status('WORKING', { inputReceived: { kind, inputId: input['inputId'], toolUseId: input['toolUseId'] } });
  return answer;
}

/**
 * How the task ends, by the message's second word: `complete` → COMPLETED, `fail` → FAILED,
 * `question` / `permission` → one more input first, anything else → INPUT_REQUIRED ("turn done").
 */
async function end(script: TaskScript, how: string): Promise<void> {
  if (how === 'complete') {
    script.finish('COMPLETED');
    return;
  }
  if (how === 'fail') {
    script.reportError('The observed task failed.', { retryable: false, errorId: 'err-observed-1' });
    return;
  }
  if (how === 'question') {
    const answer = await ask(script, questionInput(script, 'toolu-q-watch'), 'ask_user_question');
    await words(script, `Plan ${answerText(answer)} it is. `);
  }
  if (how === 'permission') {
    const answer = await ask(
      script,
      permissionInput(script, { toolUseId: 'toolu-shell-9', toolName: 'run_shell', title: 'Apply the plan.', target: 'terraform apply' }),
      'permission',
    );
    await words(script, `Apply ${answerText(answer)}. `);
  }
  script.finish('INPUT_REQUIRED');
}

export function observationScenarios(controls: EmulatorControls): Record<string, Scenario> {
  /** Streams a sentence, waits for its observers, streams another, then ends (see `end`). */
  const watched: Scenario = async (script, input) => {
    script.task('SUBMITTED');
    // The first sentence goes out with the task, at once: an observer learns of the task only from
    // it, so it attaches after the whole sentence and finds it in the task it attaches to, never
    // as live updates — what each observer sees does not depend on how fast it attached.
    for (const word of 'Watched work begins. '.split(/(?<= )/)) script.text(word);
    await script.untilAttached(controls.watch.observers, controls.watch.timeoutMs);
    await words(script, 'Observers see this part. ');
    await end(script, secondWord(input.text));
  };

  /**
   * Asks (a question or a candidate selection); after the answer its stream ends while the task
   * still works (the answer's SendStreamingMessage sees only WORKING), the task waits for a
   * SubscribeToTask, then goes on and ends (see `end`).
   */
  const promptContinues =
    (kind: 'ask_user_question' | 'candidate_selection'): Scenario =>
    async (script, input) => {
      script.task('SUBMITTED');
      await words(script, 'One choice first. ');
      const prompt = kind === 'ask_user_question' ? questionInput(script, 'toolu-q-cont') : candidateSelectionInput(script);
      const answer = await ask(script, prompt, kind);
      await words(script, `Noted: ${answerText(answer)}. `);
      script.detach();
      await script.untilAttached(1, controls.watch.timeoutMs);
      await words(script, 'The pipeline goes on. ');
      await end(script, secondWord(input.text));
    };

  return { watched, 'question-continues': promptContinues('ask_user_question'), 'candidates-continue': promptContinues('candidate_selection') };
}
