/**
 * Images over real HTTP with the A2A emulator (docs/protocol.md §3.4): the kernel is told the type
 * decoded from the bytes, an undecodable image is refused before the stream with nothing written
 * and no kernel call, the run-id digest is that of the request as received, and the emulator
 * refuses what the real kernel refuses — so an image sent un-downsampled fails here.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SdkA2AKernel } from '../../lib/adapters/a2a-kernel/sdk-kernel.js';
import { SharpImageCodec } from '../../lib/adapters/image/sharp-codec.js';
import { contextIdFor } from '../../lib/core/a2a/outbound.js';
import { KernelRpcError } from '../../lib/core/ports.js';
import { downsampleImage } from '../../lib/core/protocol/image-downsample.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { greyPng, imagePart, photoLikePixels, photoLikePng } from '../support/images.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack.close());

type SentPart = { text?: string; data?: { filename: string; bytes: string }; mediaType?: string };

function sentParts(threadId: string): SentPart[] {
  const contextId = contextIdFor(threadId);
  const call = stack.emulator
    .callsOf('SendStreamingMessage')
    .filter((recorded) => (recorded.params as { message: { contextId: string } }).message.contextId === contextId)
    .at(-1);
  return (call?.params as { message: { parts: SentPart[] } }).message.parts;
}

const smallJpeg = () =>
  sharp(photoLikePixels(64, 48), { raw: { width: 64, height: 48, channels: 3 } })
    .jpeg()
    .toBuffer();

describe('images through the adapter', () => {
  it('sends a JPEG declared as PNG untouched, as image/jpeg, and the stream passes the AG-UI oracle', async () => {
    const jpeg = await smallJpeg();
    const body = runBody({ content: [{ type: 'text', text: 'what is this' }, imagePart('image/png', jpeg, 'shot.png')] });
    const { status, sse } = await stack.run(body);
    expect(status).toBe(200);
    expect(sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    await assertValidAgUiStream(sse.events);
    expect(sentParts(body['threadId'] as string)).toEqual([{ text: 'what is this' }, { data: { filename: 'shot.png', bytes: jpeg.toString('base64') }, mediaType: 'image/jpeg' }]);
  });

  it('refuses a truncated image with 400 naming the part, before any store write or kernel call', async () => {
    const png = photoLikePng(300, 200);
    const body = runBody({ content: [{ type: 'text', text: 'x' }, imagePart('image/png', png.subarray(0, png.length - 5_000))] });
    const kernelCalls = stack.emulator.calls.length;
    const response = await stack.post('/', body);
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; details: Array<{ path: string; message: string }> } };
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.details).toEqual([{ path: 'messages[0].content[1]', message: expect.stringContaining('cannot be decoded') }]);
    // Our words only: nothing libvips says reaches the caller (docs/protocol.md §2.5).
    expect(JSON.stringify(error.details)).not.toMatch(/vips|VipsJpeg|pngload|jpegload|Input buffer/i);
    expect(await stack.store.load(body['threadId'] as string)).toBeUndefined();
    expect(stack.emulator.calls.length).toBe(kernelCalls);
  });

  it('refuses a tall, thin image and one of too many pixels with 400 imageTooLarge naming each part, before any store write or kernel call', async () => {
    // Both a few KB: their cost is in their dimensions (docs/protocol.md §1.4).
    const body = runBody({ content: [{ type: 'text', text: 'x' }, imagePart('image/png', greyPng(1, 20_000_000)), imagePart('image/png', greyPng(10_000, 10_000))] });
    const kernelCalls = stack.emulator.calls.length;
    const response = await stack.post('/', body);
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string; details: Array<{ path: string; message: string }> } };
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe('An image exceeds the size limit.');
    expect(error.details).toEqual([
      { path: 'messages[0].content[1]', message: expect.stringContaining('16384 px') },
      { path: 'messages[0].content[2]', message: expect.stringContaining('67108864') },
    ]);
    expect(await stack.store.load(body['threadId'] as string)).toBeUndefined();
    expect(stack.emulator.calls.length).toBe(kernelCalls);
  });

  it('digests the request as received: two encodings of one photo downsample to the same bytes, yet reusing the run id is a conflict', async () => {
    // Wider than 2000 px, so both are shrunk (and, small enough, kept as PNG).
    const stored = photoLikePng(2400, 200);
    const deflated = await sharp(stored).png({ compressionLevel: 1 }).toBuffer();
    expect(deflated.equals(stored)).toBe(false);
    const [fromStored, fromDeflated] = await Promise.all([stored, deflated].map((png) => downsampleImage(png, new SharpImageCodec())));
    expect(Buffer.from(fromDeflated?.bytes ?? []).equals(Buffer.from(fromStored?.bytes ?? []))).toBe(true);

    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const first = runBody({ threadId, runId, content: [imagePart('image/png', stored)] });
    expect((await stack.run(first)).sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    expect(sentParts(threadId)[0]).toEqual({ data: { filename: 'agui-image-1', bytes: Buffer.from(fromStored?.bytes ?? []).toString('base64') }, mediaType: 'image/png' });

    const again = await stack.post('/', first);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('DUPLICATE_RUN_ID');
    const other = await stack.post('/', runBody({ threadId, runId, content: [imagePart('image/png', deflated)] }));
    expect(other.status).toBe(409);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('RUN_ID_CONFLICT');
  });
});

describe('the emulator plays the kernel’s limits on binary data parts', () => {
  const kernel = () => new SdkA2AKernel({ url: stack.emulator.url, token: undefined });
  const send = async (part: SentPart): Promise<unknown> => {
    const params = { message: { messageId: uniqueId('m'), role: 'ROLE_USER', contextId: uniqueId('ctx'), parts: [{ text: 'look' }, part] } };
    try {
      for await (const item of kernel().sendStreamingMessage(params)) void item;
      return undefined;
    } catch (error) {
      return error;
    }
  };

  it('refuses a data part over 5 MiB decoded, or of a type the kernel does not take, with invalid params', async () => {
    const tooLarge = await send({ data: { filename: 'big.png', bytes: Buffer.alloc(5 * 1024 * 1024 + 1).toString('base64') }, mediaType: 'image/png' });
    expect(tooLarge).toBeInstanceOf(KernelRpcError);
    expect(tooLarge).toMatchObject({ rpcCode: -32602, message: expect.stringContaining('A2A binary data part content is too large.') });

    const bmp = await send({ data: { filename: 'a.bmp', bytes: Buffer.from('BM').toString('base64') }, mediaType: 'image/bmp' });
    expect(bmp).toMatchObject({ rpcCode: -32602, message: expect.stringContaining('A2A binary data part media type is not supported.') });
  });

  it('accepts a data part of exactly 5 MiB', async () => {
    expect(await send({ data: { filename: 'edge.png', bytes: Buffer.alloc(5 * 1024 * 1024).toString('base64') }, mediaType: 'image/png' })).toBeUndefined();
  });
});
