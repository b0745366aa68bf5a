import { MemoryThreadStore } from '../../lib/adapters/memory-store.js';
import { describeThreadStoreContract } from './thread-store-contract.js';

describeThreadStoreContract('memory', async () => new MemoryThreadStore());
