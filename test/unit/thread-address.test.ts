/**
 * Where a thread id leads (docs/protocol.md §6.3 "Namespaces", §6.11; lib/core/thread/thread-address.ts):
 * a service's keys and context ids are exactly those of every earlier version (and of iac-code's own
 * adapter), a person's are their own — per user, deterministic, at most 200 characters, safe file
 * names, never showing the user id — and a store seen from a namespace reads, writes and journals
 * there, its due entries carrying the namespace back to the sweeper.
 */
import { describe, expect, it } from 'vitest';
import { contextIdFor } from '../../lib/core/a2a/outbound.js';
import { personCaller, SERVICE } from '../../lib/core/caller.js';
import { dueThreadOf } from '../../lib/core/journal/journal-names.js';
import { contextIdOf, namespaceOf, personNamespace, storageKey, threadStoreAt, threadStoreFor } from '../../lib/core/thread/thread-address.js';
import { MemoryThreadStore } from '../support/memory-store.js';

const SAFE_FILE_NAME = /^[A-Za-z0-9_.~-]+$/;
const IDS = ['thread-1', 'Thread-1', '8473547e-c8ed-4aef-a84c-603a6a8d42da', 'con', '会话', 'x'.repeat(201), 'T'.repeat(115), '../external/thread', 'a'.repeat(200)];

describe('thread addresses (docs/protocol.md §6.11)', () => {
  it('keeps every service key and context id byte for byte', () => {
    expect(namespaceOf(SERVICE)).toBeUndefined();
    expect(storageKey('thread-1')).toBe('thread-1');
    expect(storageKey('Thread-1')).toBe('aguiid~5468726561642d31');
    expect(storageKey('x'.repeat(201))).toBe('aguihash~84a0678c90937f5dcf9994d5866668da6b995109c8ad845410559b48a4ecafed');
    expect(contextIdOf('thread-1', undefined)).toBe('agui-4b0a5fefc328e6b9257bc535e3c5d26fec36b52f');
    expect(contextIdOf('Thread-1', undefined)).toBe('agui-cd053e6a8e66badc3074c59b89456287170c25db');
    for (const id of IDS) expect(contextIdOf(id, namespaceOf(SERVICE))).toBe(contextIdFor(id));
  });

  it('gives each person their own keys and contexts: deterministic, per user, ≤ 200 characters, safe names, no user id in them', () => {
    const alice = personNamespace('alice@example.com');
    const bob = personNamespace('bob@example.com');
    expect(alice).toMatch(/^[0-9a-f]{64}$/);
    expect(namespaceOf(personCaller('alice@example.com'))).toBe(alice);
    expect(personNamespace('alice@example.com')).toBe(alice);
    for (const id of IDS) {
      const key = storageKey({ threadId: id, namespace: alice });
      expect(key).toBe(storageKey({ threadId: id, namespace: alice }));
      expect(key.startsWith(`aguiuser~${alice}~`)).toBe(true);
      expect(key.length).toBeLessThanOrEqual(200);
      expect(key).toMatch(SAFE_FILE_NAME);
      expect(key).not.toContain('alice');
      expect(key).not.toBe(storageKey({ threadId: id, namespace: bob }));
      expect(key).not.toBe(storageKey(id));
      const context = contextIdOf(id, alice);
      expect(context).toMatch(/^aguiu-[0-9a-f]{40}$/);
      expect(context).not.toBe(contextIdOf(id, bob));
      expect(context).not.toBe(contextIdFor(id));
    }
    // A safe id keeps its own key inside the namespace; an id too long for it is hashed there.
    expect(storageKey({ threadId: 'thread-1', namespace: alice })).toBe(`aguiuser~${alice}~thread-1`);
    expect(storageKey({ threadId: 'a'.repeat(200), namespace: alice })).toMatch(/^aguiuser~[0-9a-f]{64}~aguihash~[0-9a-f]{64}$/);
    expect(storageKey({ threadId: 'a'.repeat(200), namespace: alice })).not.toBe(storageKey({ threadId: 'a'.repeat(201), namespace: alice }));
  });

  it('no service thread id reaches a person’s key, whatever it spells', () => {
    const alice = personNamespace('alice');
    const spelled = `aguiuser~${alice}~thread-1`;
    expect(storageKey(spelled)).not.toBe(storageKey({ threadId: 'thread-1', namespace: alice }));
    expect(storageKey(spelled).startsWith('aguiid~')).toBe(true);
  });

  it('reads and writes a person’s thread in their namespace only, and journals it there', async () => {
    const store = new MemoryThreadStore();
    const alices = threadStoreFor(store, personCaller('alice'));
    const bobs = threadStoreFor(store, personCaller('bob'));
    expect(threadStoreFor(store, SERVICE)).toBe(store);
    await alices.save('t1', { owner: 'alice' }, 0);
    expect(await bobs.load('t1')).toBeUndefined();
    expect(await store.load('t1')).toBeUndefined();
    expect(await alices.load('t1')).toEqual({ document: { owner: 'alice' }, revision: 1 });
    expect(await store.load({ threadId: 't1', namespace: personNamespace('alice') })).toEqual({ document: { owner: 'alice' }, revision: 1 });

    // Due entries scheduled through a namespace name it, so the sweeper comes back to the same thread.
    const entry = { kind: 'expire' as const, threadId: 't1', executionId: 'e-1', dueAt: 5 };
    await alices.journal?.schedule(entry);
    const [due] = (await store.journal.due(10, 10)) ?? [];
    expect(due).toEqual({ ...entry, namespace: personNamespace('alice') });
    expect(threadStoreAt(store, due?.namespace)).not.toBe(store);
    expect(threadStoreAt(store, undefined)).toBe(store);
  });

  it('reads a due entry’s namespace back from its stored body, and drops one that is not a namespace', () => {
    const namespace = personNamespace('alice');
    expect(dueThreadOf(JSON.stringify({ kind: 'expire', threadId: 't1', executionId: 'e', dueAt: 1 }))).toEqual({ threadId: 't1' });
    expect(dueThreadOf(JSON.stringify({ threadId: 't1', namespace }))).toEqual({ threadId: 't1', namespace });
    expect(dueThreadOf(JSON.stringify({ threadId: 't1', namespace: 'alice' }))).toBeUndefined();
    expect(dueThreadOf(JSON.stringify({ namespace }))).toBeUndefined();
  });
});
