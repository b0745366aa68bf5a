/**
 * Scenarios that stop for a cloud resource selection (docs/protocol.md §5.2): a tool asks the user
 * to pick a VPC (`resource-selection`), or a Redis connection URL derived from an earlier choice
 * (`resource-selection-derived`, whose selector carries a `source`). The answer arrives as the
 * prefixed JSON text the message guard already checked (message-guard.ts); the task goes on either
 * way — a canceled selection is not a task cancel.
 */
import { awaited } from './inputs.js';
import { REDIS_URL_SELECTOR, RESOURCE_SELECTION_PREFIX, resourceSelectionInput, type SelectorSpec, VPC_SELECTOR } from './resource-selection.js';
import type { Scenario } from './scenarios.js';
import type { Json, TaskScript } from './task-script.js';

async function words(script: TaskScript, sentence: string): Promise<void> {
  for (const word of sentence.split(/(?<= )/)) {
    script.text(word);
    await script.pause(3);
  }
}

function selectionScenario(selector: SelectorSpec, toolUseId: string, prompt: string): Scenario {
  return async (script) => {
    script.task('SUBMITTED');
    await words(script, 'I need a resource from your account. ');
    script.status('WORKING', { tool: { status: 'started', toolUseId, name: 'select_cloud_resource' } });
    const input = resourceSelectionInput(script, toolUseId, selector, prompt);
    script.exposed = { input };
    script.status('INPUT_REQUIRED', { input });
    const answer = await script.awaitAnswer(awaited(input));
    script.exposed = {};
    const text = answer.kind === 'text' ? answer.text : '';
    const selection = JSON.parse(text.slice(RESOURCE_SELECTION_PREFIX.length)) as Json;
    script.status('WORKING', { inputReceived: { kind: 'cloud_resource_selection', inputId: input['inputId'], toolUseId, status: selection['status'] } });
    if (selection['status'] === 'selected') await words(script, `Using ${String(selection['value'])} (${String(selection['label'])}). `);
    else await words(script, selection['optionsEmpty'] === true ? 'No resources to choose from; I will create one. ' : 'Selection canceled; I will create a new one. ');
    script.finish('INPUT_REQUIRED');
  };
}

export const RESOURCE_SELECTION_SCENARIOS: Record<string, Scenario> = {
  'resource-selection': selectionScenario(VPC_SELECTOR, 'toolu-select-vpc', 'Choose the VPC to deploy into.'),
  'resource-selection-derived': selectionScenario(REDIS_URL_SELECTOR, 'toolu-select-redis', 'Choose the Redis connection address.'),
};
