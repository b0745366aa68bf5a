import { MemoryThreadStore } from '../support/memory-store.js';
import { describeThreadStoreContract } from './thread-store-contract.js';

describeThreadStoreContract('memory', async () => new MemoryThreadStore());
