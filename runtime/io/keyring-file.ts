/**
 * The keyring_file plugin's file (MySQL 5.7 and 8.0's keyring_file_data), the older of the two keyrings a
 * MySQL 8 server may keep its binlog keys in: the version text, the keys one record each
 * (schemas/encryption.yaml's KeyringFileKey, key bytes obfuscated), the EOF tag and, in version 2.0, the
 * SHA-256 digest of the records' bytes. The lengths are read as the 64-bit little-endian servers write them.
 */
import { createHash } from 'node:crypto';
import {
  decodeKeyringFileKey,
  KEYRING_FILE_DIGEST_LENGTH,
  KEYRING_FILE_EOF_TAG,
  KEYRING_FILE_OBFUSCATION,
  KEYRING_FILE_VERSION_1,
  KEYRING_FILE_VERSION_2,
  KEYRING_FILE_WORD,
} from '../../generated/encryption.js';
import type { Context } from '../../generated/context.js';
import { BinlogError } from '../core/errors.js';
import { Reader } from '../core/reader.js';
import { KeyError } from '../events/encryption.js';

/** A record's structure needs nothing of a binlog's context. */
const NO_CONTEXT = {} as Context;
/** The five lengths before a record's strings. */
const RECORD_HEAD = 5 * KEYRING_FILE_WORD;

const latin1 = (text: string) => Uint8Array.from(Buffer.from(text, 'latin1'));
const VERSION_1 = latin1(KEYRING_FILE_VERSION_1);
const VERSION_2 = latin1(KEYRING_FILE_VERSION_2);
const EOF_TAG = latin1(KEYRING_FILE_EOF_TAG);
const OBFUSCATION = latin1(KEYRING_FILE_OBFUSCATION);

function startsWith(bytes: Uint8Array, prefix: Uint8Array, at = 0): boolean {
  return bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b);
}

/** Whether the bytes are a keyring_file plugin file (they begin with its version text). */
export function isKeyringPluginFile(bytes: Uint8Array): boolean {
  return startsWith(bytes, VERSION_1) || startsWith(bytes, VERSION_2);
}

/** The key's bytes as the plugin keeps them in memory: the file's XORed with the obfuscation text again. */
function unobfuscated(stored: Uint8Array): Uint8Array {
  return Uint8Array.from(stored, (b, i) => b ^ OBFUSCATION[i % OBFUSCATION.length]);
}

/**
 * The server's keys of a keyring_file plugin file, by key id. Keys that belong to a user (keyring_key_store
 * with a user id) are left out: the server's own keys, the binlog's among them, have none.
 */
export function parseKeyringPluginFile(bytes: Uint8Array): Map<string, Uint8Array> {
  const v2 = startsWith(bytes, VERSION_2);
  const start = (v2 ? VERSION_2 : VERSION_1).length;
  const end = bytes.length - (v2 ? KEYRING_FILE_DIGEST_LENGTH : 0) - EOF_TAG.length;
  if (end < start || !startsWith(bytes, EOF_TAG, end)) {
    throw new KeyError(`the keyring file has no EOF tag at offset ${Math.max(end, 0)} (${v2 ? '2.0' : '1.0'})`);
  }
  if ((end - start) % KEYRING_FILE_WORD !== 0) {
    throw new KeyError(`the keyring file's keys take ${end - start} bytes, not a multiple of ${KEYRING_FILE_WORD}`);
  }
  if (v2) checkDigest(bytes.subarray(start, end), bytes.subarray(end + EOF_TAG.length), end + EOF_TAG.length);
  const keys = new Map<string, Uint8Array>();
  const r = new Reader(bytes, start, end, 0);
  while (r.pos < end) {
    const at = r.pos;
    const record = readRecord(r, at);
    if (record.userId === '') keys.set(record.keyId, unobfuscated(record.key));
  }
  return keys;
}

/** One key's record at `at`, its length checked as get_key_pod_size makes it. */
function readRecord(r: Reader, at: number): { keyId: string; userId: string; key: Uint8Array } {
  const length = new DataView(r.buf.buffer, r.buf.byteOffset).getUint32(at, true);
  if (at + RECORD_HEAD > r.end || length % KEYRING_FILE_WORD !== 0 || length < RECORD_HEAD || at + length > r.end) {
    throw new KeyError(`the keyring file's key at offset ${at} has a length (${length}) that does not fit the file`);
  }
  let record;
  try {
    record = decodeKeyringFileKey(new Reader(r.buf, at, at + length, 0), NO_CONTEXT);
  } catch (e) {
    if (e instanceof BinlogError) throw new KeyError(`the keyring file's key at offset ${at}: ${e.problem}`);
    throw e;
  }
  const strings = record.keyIdLength + record.keyTypeLength + record.userIdLength + record.keyLength;
  const padding = (KEYRING_FILE_WORD - ((RECORD_HEAD + strings) % KEYRING_FILE_WORD)) % KEYRING_FILE_WORD;
  if (record.padding.length !== padding) {
    throw new KeyError(
      `the keyring file's key at offset ${at} has ${record.padding.length} bytes of padding, not ${padding}`,
    );
  }
  r.pos = at + length;
  const text = (t: string | Uint8Array) => (typeof t === 'string' ? t : Buffer.from(t).toString('latin1'));
  return { keyId: text(record.keyId), userId: text(record.userId), key: record.key };
}

/** Version 2.0's digest: SHA-256 of the records' bytes (Buffered_file_io's Digest over the buffer). */
function checkDigest(records: Uint8Array, stored: Uint8Array, at: number): void {
  const digest = createHash('sha256').update(records).digest();
  if (!digest.equals(stored)) {
    throw new KeyError(`the keyring file's SHA-256 digest at offset ${at} is not that of its keys: it is damaged`);
  }
}
