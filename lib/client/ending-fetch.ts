/**
 * The fetch the client's streams use (the console's and IacCodeAgent's): a response body that breaks
 * mid-stream (a network cut, a proxy resetting the connection) ends instead of erroring, and the
 * break is kept. @ag-ui/client 1.0 rethrows a body error from its reader's cancel, where nothing can
 * catch it (a page would report an unhandled rejection); an ended body is a stream without its
 * terminal event, which the client reads as a lost connection and reattaches (reattach.ts,
 * docs/protocol.md §6.14).
 */
export class ConnectionBroken extends Error {
  override readonly name = 'ConnectionBroken';
}

export interface EndingFetch {
  fetch(url: string, init: RequestInit): Promise<Response>;
  /** Why the body ended early, if it broke. */
  readonly broken: ConnectionBroken | undefined;
}

export function endingFetch(underlying: (url: string, init: RequestInit) => Promise<Response> = (url, init) => fetch(url, init)): EndingFetch {
  let broken: ConnectionBroken | undefined;
  return {
    get broken() {
      return broken;
    },
    async fetch(url, init) {
      const response = await underlying(url, init);
      if (!response.body) return response;
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (done) controller.close();
            else controller.enqueue(value);
          } catch (error) {
            broken = new ConnectionBroken(`the connection broke mid-stream (${String((error as Error)?.message ?? error)})`, { cause: error });
            controller.close();
          }
        },
        cancel(reason) {
          return reader.cancel(reason).catch(() => undefined);
        },
      });
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    },
  };
}
