/**
 * What sdk-kernel.ts uses of @a2a-js/sdk, in one module it imports on the first kernel call
 * (docs/architecture.md §6.3): importing the SDK's entries directly by a dynamic import would keep
 * every export of both in the bundle; named imports here let the bundler keep only these.
 */
export { Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
export { Client, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
