/**
 * Fetches for the official @ag-ui/client that make a connection drop look as it does behind a
 * proxy: the response body simply ends. (When a body errors instead, @ag-ui/client 1.0 rethrows
 * the error from its reader's cancel, which Node reports as an unhandled rejection.)
 */
export type FetchFn = (url: string, init: RequestInit) => Promise<Response>;

function endingBody(response: Response, cut: (seen: string) => Promise<boolean>): Response {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let seen = '';
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: { done: boolean; value?: Uint8Array | undefined };
      try {
        chunk = await reader.read();
      } catch {
        // The connection broke (the instance died): the client sees the stream end.
        controller.close();
        return;
      }
      if (chunk.done) {
        controller.close();
        return;
      }
      controller.enqueue(chunk.value as Uint8Array);
      seen += decoder.decode(chunk.value as Uint8Array, { stream: true });
      if (seen.endsWith('\n\n') && (await cut(seen))) {
        controller.close();
        await reader.cancel();
      }
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/** A broken connection ends the body instead of erroring it. */
export const tolerantFetch: FetchFn = async (url, init) => endingBody(await fetch(url, init), async () => false);

/**
 * Cuts the body, at an event boundary, once its text contains `marker` and `beforeCut` resolved:
 * the client reads an end of stream and the real connection is closed.
 */
export function cutAfter(marker: string, beforeCut: () => Promise<void>): FetchFn {
  return async (url, init) =>
    endingBody(await fetch(url, init), async (seen) => {
      if (!seen.includes(marker)) return false;
      await beforeCut();
      return true;
    });
}
