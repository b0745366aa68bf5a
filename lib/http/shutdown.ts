/**
 * The reason a runtime shell gives when it aborts a request's signal because its instance is
 * stopping (docs/architecture.md §6.4). A run then follows its disconnect policy; a request whose
 * body is still arriving is refused at once with 503 SERVER_BUSY and Retry-After — nothing
 * written, nothing sent — so the caller retries on another instance (docs/protocol.md §2.3).
 */
export class InstanceShuttingDown extends Error {
  constructor() {
    super('the instance is shutting down');
    this.name = 'InstanceShuttingDown';
  }
}
