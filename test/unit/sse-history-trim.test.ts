import { describe, expect, it } from 'vitest';
import { trimmingSseStream } from '../../lib/adapters/a2a-kernel/sse-history-trim.js';

async function pipe(chunks: string[]): Promise<string> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
  return new Response(source.pipeThrough(trimmingSseStream())).text();
}

describe('trimming echoed user history from large SSE events', () => {
  it('passes small events through unchanged, across arbitrary chunk boundaries and CRLF line ends', async () => {
    const text = 'data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t"}}}\r\n\r\n: ping\r\n\r\n';
    const out = await pipe([text.slice(0, 7), text.slice(7, 40), text.slice(40, 75), text.slice(75)]);
    expect(out).toBe(text.replace(/\r\n/g, '\n'));
  });

  it('removes data parts of user messages from a large task event and keeps everything else', async () => {
    const big = 'A'.repeat(700_000);
    const event = {
      jsonrpc: '2.0',
      id: 1,
      result: {
        task: {
          id: 't',
          history: [
            { role: 'ROLE_USER', parts: [{ text: 'look' }, { data: { bytes: big }, mediaType: 'image/png' }] },
            { role: 'ROLE_AGENT', parts: [{ data: { x: 1 } }] },
          ],
        },
      },
    };
    const out = await pipe([`data: ${JSON.stringify(event)}\n\n`]);
    const parsed = JSON.parse(out.trim().slice(6));
    expect(parsed.result.task.history[0].parts).toEqual([{ text: 'look' }]);
    expect(parsed.result.task.history[1].parts).toEqual([{ data: { x: 1 } }]);
  });

  it('splits a large event arriving in many chunks, with the blank line split across two of them', async () => {
    const big = 'B'.repeat(3_000_000);
    const large = `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { task: { id: 't', history: [{ role: 'ROLE_USER', parts: [{ text: 'x' }, { data: { bytes: big } }] }] } } })}`;
    const small = 'data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t"}}}';
    const text = `${large}\n\n${small}\n\n`;
    // 64 KiB chunks, and one boundary placed between the two newlines that end the large event.
    const cut = large.length + 1;
    const chunks: string[] = [];
    for (let start = 0; start < cut; start += 65_536) chunks.push(text.slice(start, Math.min(start + 65_536, cut)));
    chunks.push(text.slice(cut));
    const events = (await pipe(chunks)).split('\n\n');
    expect(events).toHaveLength(3);
    expect(JSON.parse((events[0] as string).slice(6)).result.task.history[0].parts).toEqual([{ text: 'x' }]);
    expect(events[1]).toBe(small);
    expect(events[2]).toBe('');
  });
});
