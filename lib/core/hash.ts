/**
 * SHA-256 for the pure core (digests, deterministic context ids, text de-duplication). The core
 * stays free of node:* so it can run on any runtime; @noble/hashes is the portable implementation.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
