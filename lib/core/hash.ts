/**
 * SHA-256 for the pure core (digests, deterministic context ids, text de-duplication). The core
 * stays free of node:* so it can run on any runtime; @noble/hashes is the portable implementation.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/** A running SHA-256 over text appended piece by piece; `hex()` does not end it. */
export interface RunningDigest {
  update(text: string): void;
  hex(): string;
}

export function runningSha256(): RunningDigest {
  const hash = sha256.create();
  return {
    update: (text) => void hash.update(utf8ToBytes(text)),
    hex: () => bytesToHex(hash.clone().digest()),
  };
}
