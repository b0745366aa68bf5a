/**
 * The words around an interrupt's form in the console (lib/console/app/interrupts/interrupt-kinds.ts,
 * selector-facts.ts; docs/protocol.md §5.2, §5.8): what cancelling does is said per kind, and a
 * resource selection's selector — as the adapter's emulator raises it — reads as facts.
 */
import { describe, expect, it } from 'vitest';
import { wordsFor } from '../../lib/console/app/interrupts/interrupt-kinds.js';
import { selectorFacts } from '../../lib/console/app/interrupts/selector-facts.js';
import { REDIS_URL_SELECTOR, VPC_SELECTOR } from '../../lib/emulators/a2a/resource-selection.js';

describe('the words around an interrupt', () => {
  it('offers no cancel for a permission (Deny is its no), a run cancel for prompts, a skip for a resource selection', () => {
    expect(wordsFor('tool_call', 'permission').cancel).toBeUndefined();
    expect(wordsFor('input_required', 'ask_user_question').cancel?.hint).toBe('Cancelling this request stops the whole run.');
    expect(wordsFor('input_required', 'candidate_selection').cancel?.label).toBe('Cancel the run instead');
    expect(wordsFor('input_required', 'deployment_confirmation')).toMatchObject({ title: 'Deployment confirmation', cancel: { label: 'Cancel the run instead' } });
    expect(wordsFor('input_required', 'cloud_resource_selection')).toMatchObject({
      title: 'Choose a cloud resource',
      cancel: { label: 'Skip this selection', hint: 'The run goes on without a resource from your account.' },
      labels: { value: 'Resource id or value', label: 'Display name', 'branch:freeText': 'Or describe it in words' },
    });
  });

  it('reads a selector as facts, the profile hash left out', () => {
    expect(selectorFacts({ ...VPC_SELECTOR, profileHash: 'sha256:00' })).toEqual([
      ['Resource type', 'vpc.vpc'],
      ['Template property', 'ALIYUN::VPC::VPC::VPCId'],
      ['Answer with', 'resource id'],
      ['Region id', 'cn-hangzhou'],
    ]);
  });

  it('names the earlier choice a derived selector depends on', () => {
    expect(selectorFacts(REDIS_URL_SELECTOR)).toContainEqual(['Depends on', 'redis.instance = r-bp1example']);
    expect(selectorFacts(REDIS_URL_SELECTOR)).toContainEqual(['Attribute', 'ConnectionString']);
  });

  it('shows nothing for a selector that is not an object', () => {
    expect(selectorFacts(null)).toEqual([]);
    expect(selectorFacts('vpc.vpc')).toEqual([]);
  });
});
