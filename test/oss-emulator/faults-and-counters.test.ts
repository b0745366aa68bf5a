/**
 * Switchable fault injection and request counters (docs/architecture.md §9.3), seen through the real ali-oss client: injected OSS errors,
 * latency, a connection dropped before anything is applied, and a write that is applied but whose
 * answer is lost — the case the OSS driver must recognise on retry.
 */
import type OSS from 'ali-oss';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { waitFor, within } from '../support/read-until.js';
import { type ClientOptions, emulatorClient, type Signing } from './ali-oss-client.js';

let emulator: OssEmulator;
beforeEach(async () => {
  emulator = await startOssEmulator();
});
afterEach(async () => {
  await emulator.close();
});

function client(signing: Signing = 'V1', extra: Partial<ClientOptions> = {}): OSS {
  return emulatorClient(emulator.endpoint, signing, extra);
}

const createOnly = { headers: { 'x-oss-forbid-overwrite': 'true' } };

/** An emulator's `sleep` whose delays wait until the test releases them, each one recorded. */
function heldDelays() {
  const held: Array<{ ms: number; release: () => void }> = [];
  const all: number[] = [];
  return {
    held,
    all,
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        all.push(ms);
        held.push({ ms, release: resolve });
      }),
    releaseAll: () => {
      for (const delay of held.splice(0)) delay.release();
    },
  };
}

describe.each<Signing>(['V1', 'V4'])('faults, %s signatures', (signing) => {
  it('answers an injected 500 InternalError and 503 ServiceUnavailable as OSS XML errors, then recovers', async () => {
    const oss = client(signing);
    await oss.put('doc', Buffer.from('v1'));
    emulator.addFault({ operation: 'GetObject', status: 500 });
    emulator.addFault({ operation: 'GetObject', status: 503 });
    await expect(oss.get('doc')).rejects.toMatchObject({ status: 500, code: 'InternalError', requestId: expect.stringMatching(/^[0-9A-F]{24}$/) });
    await expect(oss.get('doc')).rejects.toMatchObject({ status: 503, code: 'ServiceUnavailable' });
    expect((await oss.get('doc')).content.toString()).toBe('v1');
  });

  it('uses the injected code when one is given, also on HEAD', async () => {
    const oss = client(signing);
    emulator.addFault({ method: 'HEAD', status: 503, code: 'SlowDown' });
    await expect(oss.head('anything')).rejects.toMatchObject({ status: 503, code: 'SlowDown' });
  });

  it('does not apply a write answered by an injected error', async () => {
    const oss = client(signing);
    emulator.addFault({ operation: 'PutObject', status: 500 });
    await expect(oss.put('not-written', Buffer.from('x'))).rejects.toMatchObject({ status: 500 });
    expect(emulator.readObject('agui-state', 'not-written')).toBeUndefined();
  });

  it('delays an answer by delayMs and then handles the request normally', async () => {
    // Its delays are ours to end: the answer must come only after its delay, whatever the machine's speed.
    const delays = heldDelays();
    const slow = await startOssEmulator({ sleep: delays.sleep });
    try {
      const oss = emulatorClient(slow.endpoint, signing);
      await oss.put('slow', Buffer.from('eventually'));
      slow.addFault({ operation: 'GetObject', delayMs: 250 });
      let answered = false;
      const reading = oss.get('slow').then((result) => {
        answered = true;
        return result;
      });
      await waitFor(() => delays.held.length === 1, { what: 'the delay', seen: () => slow.counters });
      expect(delays.held.map((delay) => delay.ms)).toEqual([250]);
      expect(answered).toBe(false);
      delays.releaseAll();
      expect((await reading).content.toString()).toBe('eventually');
      // Used up: the next read waits for nothing.
      expect((await oss.get('slow')).content.toString()).toBe('eventually');
      expect(delays.all).toEqual([250]);
    } finally {
      delays.releaseAll();
      await slow.close();
    }
  });

  it('lets a delay outlast the client timeout', async () => {
    const oss = client(signing);
    await oss.put('slower', Buffer.from('x'));
    emulator.addFault({ operation: 'GetObject', delayMs: 1_000 });
    await expect(oss.get('slower', { timeout: 150 })).rejects.toMatchObject({ name: 'ResponseTimeoutError' });
  });

  it('drops the connection without answering and without applying the write', async () => {
    const oss = client(signing);
    emulator.addFault({ operation: 'PutObject', drop: true });
    await expect(oss.put('dropped', Buffer.from('x'), createOnly)).rejects.toMatchObject({ status: -1 });
    expect(emulator.readObject('agui-state', 'dropped')).toBeUndefined();
    // The client can simply try again.
    await oss.put('dropped', Buffer.from('x'), createOnly);
    expect(emulator.readObject('agui-state', 'dropped')?.toString()).toBe('x');
  });

  it('applies the write and then drops the connection (the answer is lost)', async () => {
    const oss = client(signing);
    emulator.addFault({ operation: 'PutObject', keyPrefix: 'threads/t1/', dropAfterApply: true });
    await expect(oss.put('threads/t1/rev-1', Buffer.from('{"nonce":"n1"}'), createOnly)).rejects.toMatchObject({ status: -1 });
    // The object exists although the writer saw an error…
    expect(emulator.readObject('agui-state', 'threads/t1/rev-1')?.toString()).toBe('{"nonce":"n1"}');
    // …so a blind retry of the create meets its own write.
    await expect(oss.put('threads/t1/rev-1', Buffer.from('{"nonce":"n1"}'), createOnly)).rejects.toMatchObject({ status: 409, code: 'FileAlreadyExists' });
  });
});

describe('fault matching', () => {
  it('matches by operation, method and key prefix, in the order faults were added', async () => {
    const oss = client();
    await oss.put('threads/a/1', Buffer.from('a'));
    await oss.put('threads/b/1', Buffer.from('b'));
    emulator.addFault({ keyPrefix: 'threads/b/', status: 500, code: 'FirstMatch' });
    emulator.addFault({ keyPrefix: 'threads/', status: 500, code: 'SecondMatch' });
    emulator.addFault({ method: 'DELETE', status: 503 });
    await expect(oss.get('threads/b/1')).rejects.toMatchObject({ code: 'FirstMatch' });
    await expect(oss.get('threads/b/1')).rejects.toMatchObject({ code: 'SecondMatch' });
    expect((await oss.get('threads/a/1')).content.toString()).toBe('a');
    await expect(oss.delete('threads/a/1')).rejects.toMatchObject({ status: 503 });
    expect(emulator.readObject('agui-state', 'threads/a/1')).toBeDefined();
  });

  it('matches listings by their prefix parameter and multi-deletes by any of their keys', async () => {
    const oss = client();
    await oss.put('threads/t/1', Buffer.from('x'));
    emulator.addFault({ operation: 'ListObjectsV2', keyPrefix: 'threads/t/', status: 500 });
    emulator.addFault({ operation: 'DeleteMultipleObjects', keyPrefix: 'threads/t/', status: 500 });
    expect((await oss.listV2({ prefix: 'other/' })).objects).toEqual([]);
    await expect(oss.listV2({ prefix: 'threads/t/' })).rejects.toMatchObject({ status: 500 });
    await expect(oss.deleteMulti(['unrelated', 'threads/t/1'])).rejects.toMatchObject({ status: 500 });
    expect(emulator.readObject('agui-state', 'threads/t/1')).toBeDefined();
  });

  it('applies a fault `times` times, or forever with Infinity, until cleared', async () => {
    const oss = client();
    await oss.put('k', Buffer.from('x'));
    emulator.addFault({ operation: 'GetObject', status: 503, times: 2 });
    await expect(oss.get('k')).rejects.toMatchObject({ status: 503 });
    await expect(oss.get('k')).rejects.toMatchObject({ status: 503 });
    expect((await oss.get('k')).res.status).toBe(200);

    emulator.addFault({ operation: 'HeadObject', status: 500, times: Infinity });
    for (let i = 0; i < 5; i += 1) await expect(oss.head('k')).rejects.toMatchObject({ status: 500 });
    emulator.clearFaults();
    expect((await oss.head('k')).status).toBe(200);
  });

  it('refuses a fault with a non-error status or a non-positive count', () => {
    expect(() => emulator.addFault({ status: 200 })).toThrow();
    expect(() => emulator.addFault({ status: 500, times: 0 })).toThrow();
  });
});

describe('counters', () => {
  it('counts every request per operation and in total, including faulted and rejected ones', async () => {
    const oss = client('V4');
    await oss.put('c/1', Buffer.from('x'));
    await oss.get('c/1');
    await oss.head('c/1');
    await oss.listV2({ prefix: 'c/' });
    await oss.list({ prefix: 'c/', 'max-keys': 100 }, {});
    await oss.deleteMulti(['c/1']);
    await oss.delete('c/1');
    emulator.addFault({ operation: 'GetObject', drop: true });
    await expect(oss.get('c/1')).rejects.toMatchObject({ status: -1 });
    await expect(client('V4', { accessKeySecret: 'wrong' }).get('c/1')).rejects.toMatchObject({ code: 'SignatureDoesNotMatch' });
    expect(emulator.counters).toMatchObject({
      PutObject: 1,
      GetObject: 3,
      HeadObject: 1,
      ListObjects: 1,
      ListObjectsV2: 1,
      DeleteMultipleObjects: 1,
      DeleteObject: 1,
      total: 9,
    });
  });

  it('resets in place, so a reference taken earlier stays live', async () => {
    const counters = emulator.counters;
    await client().put('r', Buffer.from('x'));
    expect(counters.PutObject).toBe(1);
    emulator.resetCounters();
    expect(counters.PutObject).toBe(0);
    expect(counters.total).toBe(0);
    await client().get('r');
    expect(emulator.counters.GetObject).toBe(1);
    expect(counters.total).toBe(1);
  });

  it('answers operations outside the driver subset with 501 (after authentication) and counts them as Unsupported', async () => {
    await expect(client().getACL('k')).rejects.toMatchObject({ status: 501, code: 'NotImplemented' });
    // Anonymous requests are refused before the emulator looks at what they ask for, as on OSS.
    expect((await fetch(`${emulator.endpoint}/agui-state/k?acl`)).status).toBe(403);
    expect(emulator.counters.Unsupported).toBe(2);
    expect(emulator.counters.GetObject).toBe(0);
  });
});

describe('inspection and lifecycle', () => {
  it('lists keys of the default bucket and reads copies of stored bytes', async () => {
    await client().put('b', Buffer.from('bee'));
    await client().put('a', Buffer.from('ay'));
    expect(emulator.objectKeys()).toEqual(['a', 'b']);
    expect(emulator.objectKeys('agui-state')).toEqual(['a', 'b']);
    const copy = emulator.readObject('agui-state', 'a');
    copy?.fill(0);
    expect(emulator.readObject('agui-state', 'a')?.toString()).toBe('ay');
    expect(emulator.readObject('agui-state', 'missing')).toBeUndefined();
    expect(() => emulator.objectKeys('not-a-bucket')).toThrow();
  });

  it('listens on loopback by default and closes promptly even with a delayed request in flight', async () => {
    expect(emulator.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(emulator.endpoint).toBe(`http://127.0.0.1:${emulator.port}`);
    // An hour: a close that waited for it would fail the deadline below.
    emulator.addFault({ delayMs: 3_600_000 });
    const pending = client()
      .get('whatever')
      .catch((error: unknown) => error);
    await waitFor(() => emulator.counters.GetObject === 1, { what: 'the delayed request', seen: () => emulator.counters });
    await within(emulator.close(), 10_000, 'the close');
    expect(await within(pending, 10_000, 'the delayed request’s end')).toMatchObject({ status: -1 });
    await within(emulator.idle(), 10_000, 'the emulator’s idle');
    emulator = await startOssEmulator();
  });
});

describe('per-request clock skew (OSS servers whose clocks disagree)', () => {
  it('shifts the Date of each answer and the Last-Modified a PutObject stamps by the skew its rule gives that request', async () => {
    const oss = client('V4');
    const trueNow = Date.now();
    emulator.setSkew(({ operation }) => (operation === 'PutObject' ? -20_000 : operation === 'ListObjectsV2' ? 30_000 : 0));
    const put = await oss.put('skewed', Buffer.from('x'));
    const listed = await oss.listV2({ prefix: 'skewed', 'max-keys': '1' }, {});
    const read = await oss.get('skewed');
    const seconds = (value: unknown) => Math.round((Date.parse(String(value)) - trueNow) / 1000);
    expect(seconds((put.res.headers as Record<string, string>).date)).toBeCloseTo(-20, -1);
    expect(seconds(listed.objects?.[0]?.lastModified)).toBeCloseTo(-20, -1);
    expect(seconds((listed.res.headers as Record<string, string>).date)).toBeCloseTo(30, -1);
    expect(seconds((read.res.headers as Record<string, string>).date)).toBeCloseTo(0, -1);
    emulator.setSkew(undefined);
    expect(seconds(((await oss.get('skewed')).res.headers as Record<string, string>).date)).toBeCloseTo(0, -1);
  });
});
