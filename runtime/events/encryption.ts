/**
 * MariaDB's encrypted binlogs (encrypt_binlog=ON): each event after START_ENCRYPTION decrypted for reading
 * and encrypted again for writing, and the file_key_management plugin's key file read. The layout is
 * schemas/encryption.yaml's; the ciphers are node:crypto's AES.
 */
import { createCipheriv, createDecipheriv, createHash, type Cipher, type Decipher } from 'node:crypto';
import {
  AES_BLOCK_LENGTH,
  encodeMariadbEventIv,
  KEY_FILE_CIPHER_KEY_LENGTH,
  KEY_FILE_SALT_LENGTH,
  KEY_FILE_SALTED_MAGIC,
  KEY_LENGTHS,
  MARIADB_BINLOG_KEY_ID,
  MARIADB_CLEAR_LENGTH_BYTES,
  MARIADB_ENCRYPTION_SCHEME,
} from '../../generated/encryption.js';
import type { Context } from '../../generated/context.js';
import { EventHeaderOffsets } from '../../generated/header.js';
import { BinlogError, InvalidValueError } from '../core/errors.js';
import { Writer } from '../core/writer.js';

/** A key management plugin holds keys by key id; file_key_management has one version of each. */
export type EncryptionKeys = ReadonlyMap<number, Uint8Array>;

/** file_key_management encrypts with one of these (file_key_management_encryption_algorithm), without padding. */
export type EventCipherName = 'AES_CBC' | 'AES_CTR';
export const EVENT_CIPHERS: readonly EventCipherName[] = ['AES_CBC', 'AES_CTR'];

/** These options say how encrypted events are read and written. */
export interface EncryptionOptions {
  keys: EncryptionKeys;
  /**
   * The cipher the server used. A binlog does not say it: reading tries each on the first encrypted event
   * and keeps the one its checksum (or, without checksums, its log_pos) accepts. Writing needs it (default
   * AES_CBC, file_key_management's default).
   */
  cipher?: EventCipherName;
}

/** A START_ENCRYPTION event gives these fields. */
export interface StartEncryption {
  scheme: number;
  keyVersion: number;
  nonce: Uint8Array;
}

/** This error says that no key decrypts the events, or that a key or a key file is unusable. */
export class KeyError extends BinlogError {
  /** At an event, its type is left unsaid: the stored type code is ciphertext. */
  constructor(problem: string, eventPos?: number) {
    super('checksum', problem, { offset: eventPos ?? -1, eventPos });
  }
}

/** Each event kept encrypted carries this sentence, which names the key it needs. */
export function missingKeyReason(keyVersion: number): string {
  const key = `key id ${MARIADB_BINLOG_KEY_ID} (version ${keyVersion})`;
  const give = 'give one with --key-file (the keys option)';
  return `the event is encrypted (MariaDB encrypt_binlog) with ${key}, which no key file given holds: ${give}`;
}

/** A check tells whether decrypted bytes are the event: its checksum (or log_pos) agrees with where it is. */
export type PlaintextCheck = (plain: Uint8Array, pos: number) => boolean;

/**
 * A file's encryption from its START_ENCRYPTION on: the key when one is given (else events are kept as
 * bytes with `reason`), and the cipher once the first encrypted event has shown which it is.
 */
export class FileEncryption {
  readonly keyVersion: number;
  readonly key: Uint8Array | undefined;
  /** This says why the events cannot be read when no key is given. */
  readonly reason: string | undefined;
  private readonly nonce: Uint8Array;
  private readonly options: EncryptionOptions | undefined;
  private cipher: EventCipher | undefined;

  constructor(start: StartEncryption, options: EncryptionOptions | undefined, pos: number) {
    if (start.scheme !== MARIADB_ENCRYPTION_SCHEME) {
      throw new InvalidValueError(
        `START_ENCRYPTION names scheme ${start.scheme}; MariaDB knows scheme ${MARIADB_ENCRYPTION_SCHEME} only`,
        { offset: pos },
      );
    }
    this.keyVersion = start.keyVersion;
    this.nonce = start.nonce;
    this.options = options;
    this.key = options?.keys.get(MARIADB_BINLOG_KEY_ID);
    if (this.key && !KEY_LENGTHS.includes(this.key.length)) {
      throw new KeyError(
        `key ${MARIADB_BINLOG_KEY_ID} has ${this.key.length} bytes; AES takes ${[...KEY_LENGTHS].join(', ')}`,
        pos,
      );
    }
    this.reason = this.key ? undefined : missingKeyReason(this.keyVersion);
    if (this.key && options?.cipher) this.cipher = new EventCipher(this.key, this.nonce, options.cipher);
  }

  /** Whether the cipher is known (given, or found by the first encrypted event). */
  get ready(): boolean {
    return this.cipher !== undefined;
  }

  /**
   * The plaintext of the stored event at `pos`. The first one chooses the cipher (the one given, or the
   * first that `check` accepts); a key that decrypts it under none is the wrong key.
   */
  decrypt(stored: Uint8Array, pos: number, check: PlaintextCheck): Uint8Array {
    if (this.cipher) return this.cipher.decrypt(stored, pos);
    const names = this.options?.cipher ? [this.options.cipher] : EVENT_CIPHERS;
    for (const name of names) {
      const cipher = new EventCipher(this.key!, this.nonce, name);
      const plain = cipher.decrypt(stored, pos);
      if (check(plain, pos)) return ((this.cipher = cipher), plain);
    }
    throw new KeyError(
      `key ${MARIADB_BINLOG_KEY_ID} (version ${this.keyVersion}) of the key file ` +
        `does not decrypt the event at ${pos}: its checksum fails after decryption ` +
        `with ${names.join(' and with ')} (is it the server's key?)`,
      pos,
    );
  }

  /** The plaintext event at `pos` is stored encrypted under the cipher given (or AES_CBC). */
  encrypt(plain: Uint8Array, pos: number): Uint8Array {
    this.cipher ??= new EventCipher(this.key!, this.nonce, this.options?.cipher ?? 'AES_CBC');
    return this.cipher.encrypt(plain, pos);
  }
}

/** The IV's bytes are a structure of the schema; it needs nothing of a binlog's context. */
const NO_CONTEXT = {} as Context;

/**
 * This cipher decrypts and encrypts one file's events under one key, nonce and cipher. The modes are built
 * on AES of single blocks (ECB), two cipher objects made once: one per event would cost more than the AES.
 */
export class EventCipher {
  private readonly forward: Cipher;
  private readonly backward: Decipher;
  constructor(
    key: Uint8Array,
    private readonly nonce: Uint8Array,
    readonly algorithm: EventCipherName,
  ) {
    const ecb = `aes-${key.length * 8}-ecb`;
    this.forward = createCipheriv(ecb, key, null).setAutoPadding(false);
    this.backward = createDecipheriv(ecb, key, null).setAutoPadding(false);
  }

  decrypt(stored: Uint8Array, pos: number): Uint8Array {
    return this.swapped(stored, pos, false);
  }

  encrypt(plain: Uint8Array, pos: number): Uint8Array {
    return this.swapped(plain, pos, true);
  }

  /**
   * Both directions move the same bytes: the first four go over the length, the cipher runs from byte 4,
   * and its output's bytes at the length's place come first, the length (clear either way) put back.
   */
  private swapped(event: Uint8Array, pos: number, encrypt: boolean): Uint8Array {
    const lengthAt = EventHeaderOffsets.eventSize;
    const clear = MARIADB_CLEAR_LENGTH_BYTES;
    const input = event.slice(clear);
    input.set(event.subarray(0, clear), lengthAt - clear);
    const output = this.run(input, this.iv(pos), encrypt);
    const out = new Uint8Array(event.length);
    out.set(output.subarray(lengthAt - clear, lengthAt), 0);
    out.set(output, clear);
    out.set(event.subarray(lengthAt, lengthAt + clear), lengthAt);
    return out;
  }

  private iv(pos: number): Uint8Array {
    const w = new Writer(AES_BLOCK_LENGTH);
    encodeMariadbEventIv(w, { nonce: this.nonce, offset: pos }, NO_CONTEXT);
    return w.finish();
  }

  /**
   * AES-CTR runs over any length, the counter block the IV plus the block's number (all 128 bits, as
   * OpenSSL counts). MariaDB's CBC without padding runs over the whole blocks and XORs the bytes past them
   * with the ECB encryption of the IV (the same both ways).
   */
  private run(input: Uint8Array, iv: Uint8Array, encrypt: boolean): Uint8Array {
    if (this.algorithm === 'AES_CTR')
      return xorInto(new Uint8Array(input.length), input, this.forward.update(counters(iv, input.length)));
    const whole = input.length - (input.length % AES_BLOCK_LENGTH);
    const out = new Uint8Array(input.length);
    if (encrypt) this.cbcEncrypt(input.subarray(0, whole), iv, out);
    else this.cbcDecrypt(input.subarray(0, whole), iv, out);
    if (whole === input.length) return out;
    const mask = this.forward.update(iv);
    for (let i = whole; i < input.length; i++) out[i] = input[i]! ^ mask[i - whole]!;
    return out;
  }

  /** Each block is the AES of the plaintext XOR the block before (the IV first): one block at a time. */
  private cbcEncrypt(plain: Uint8Array, iv: Uint8Array, out: Uint8Array): void {
    let previous = iv;
    const block = new Uint8Array(AES_BLOCK_LENGTH);
    for (let at = 0; at < plain.length; at += AES_BLOCK_LENGTH) {
      xorInto(block, plain.subarray(at, at + AES_BLOCK_LENGTH), previous);
      out.set(this.forward.update(block), at);
      previous = out.subarray(at, at + AES_BLOCK_LENGTH);
    }
  }

  /** Each block's inverse AES XOR the ciphertext block before (the IV first): all blocks at once. */
  private cbcDecrypt(ciphertext: Uint8Array, iv: Uint8Array, out: Uint8Array): void {
    if (ciphertext.length === 0) return;
    const decrypted = this.backward.update(ciphertext);
    xorInto(out.subarray(0, AES_BLOCK_LENGTH), decrypted.subarray(0, AES_BLOCK_LENGTH), iv);
    const rest = ciphertext.length - AES_BLOCK_LENGTH;
    xorInto(out.subarray(AES_BLOCK_LENGTH), decrypted.subarray(AES_BLOCK_LENGTH, AES_BLOCK_LENGTH + rest), ciphertext);
  }
}

/** `out` gets `a` XOR `b`, as long as `a`; `out` is returned. */
function xorInto(out: Uint8Array, a: Uint8Array, b: Uint8Array): Uint8Array {
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

/** The counter blocks for `length` bytes of CTR from `iv`: each block the one before plus one, big-endian. */
function counters(iv: Uint8Array, length: number): Uint8Array {
  const blocks = Math.ceil(length / AES_BLOCK_LENGTH);
  const out = new Uint8Array(blocks * AES_BLOCK_LENGTH);
  out.set(iv);
  for (let b = 1; b < blocks; b++) {
    const at = b * AES_BLOCK_LENGTH;
    out.copyWithin(at, at - AES_BLOCK_LENGTH, at);
    for (let i = at + AES_BLOCK_LENGTH - 1; i >= at && ++out[i]! === 256; i--) out[i] = 0;
  }
  return out;
}

/**
 * The keys of a file_key_management key file: `id;hexkey` lines, `#` comments and blank lines. A file that
 * starts with "Salted__" was encrypted by openssl enc and needs `secret`, the plugin's filekey.
 */
export function parseKeyFile(bytes: Uint8Array, secret?: string): Map<number, Uint8Array> {
  const salted = startsWith(bytes, KEY_FILE_SALTED_MAGIC);
  if (salted && secret === undefined)
    throw new KeyError('the key file is encrypted (it starts with Salted__): give its key (--key-file-key)');
  if (!salted && secret !== undefined) throw new KeyError('the key file is not encrypted, yet a key for it is given');
  const text = Buffer.from(salted ? decryptKeyFile(bytes, secret!) : bytes).toString('latin1');
  const keys = new Map<number, Uint8Array>();
  text.split('\n').forEach((line, i) => {
    const entry = keyLine(line, i + 1);
    if (entry) keys.set(entry[0], entry[1]);
  });
  return keys;
}

const KEY_LINE = /^\s*(\d+);([0-9a-fA-F]*)/;

function keyLine(line: string, number: number): [number, Uint8Array] | undefined {
  const text = line.replace(/\r$/, '');
  if (/^\s*(#|$)/.test(text)) return undefined;
  const m = KEY_LINE.exec(text);
  if (!m) throw new KeyError(`key file line ${number}: expected id;hexkey`);
  const id = Number(m[1]);
  if (id < 1 || id > 0xffffffff)
    throw new KeyError(`key file line ${number}: key id ${m[1]} is not between 1 and 4294967295`);
  const hex = m[2]!;
  if (hex.length % 2 !== 0 || !KEY_LENGTHS.includes(hex.length / 2)) {
    throw new KeyError(
      `key file line ${number}: key ${id} has ${hex.length} hex digits, ` +
        `not ${KEY_LENGTHS.map((n) => n * 2).join(', ')}`,
    );
  }
  return [id, Uint8Array.from(Buffer.from(hex, 'hex'))];
}

/** openssl enc encrypted the key file with AES-256-CBC under EVP_BytesToKey(SHA-1, one round) of secret and salt. */
function decryptKeyFile(bytes: Uint8Array, secret: string): Uint8Array {
  const saltAt = KEY_FILE_SALTED_MAGIC.length;
  const salt = bytes.subarray(saltAt, saltAt + KEY_FILE_SALT_LENGTH);
  const { key, iv } = bytesToKey(Buffer.from(secret, 'utf8'), salt);
  const decipher = createDecipheriv(`aes-${KEY_FILE_CIPHER_KEY_LENGTH * 8}-cbc`, key, iv);
  try {
    return Buffer.concat([decipher.update(bytes.subarray(saltAt + KEY_FILE_SALT_LENGTH)), decipher.final()]);
  } catch {
    throw new KeyError('the key file does not decrypt with the key given (--key-file-key)');
  }
}

/** The key file's cipher takes its key and IV from SHA-1 digests chained over the secret and the salt. */
function bytesToKey(secret: Uint8Array, salt: Uint8Array): { key: Uint8Array; iv: Uint8Array } {
  const need = KEY_FILE_CIPHER_KEY_LENGTH + AES_BLOCK_LENGTH;
  const digests: Uint8Array[] = [];
  let total = 0;
  let previous = new Uint8Array(0);
  while (total < need) {
    previous = createHash('sha1').update(previous).update(secret).update(salt).digest();
    digests.push(previous);
    total += previous.length;
  }
  const all = Buffer.concat(digests);
  return { key: all.subarray(0, KEY_FILE_CIPHER_KEY_LENGTH), iv: all.subarray(KEY_FILE_CIPHER_KEY_LENGTH, need) };
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);
}
