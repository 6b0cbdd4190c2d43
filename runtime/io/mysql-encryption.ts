/**
 * MySQL 8.0.14+'s encrypted binlog files (binlog_encryption=ON): a 512-byte header (schemas/encryption.yaml's
 * MysqlEncryptionHeader), then the whole plain binlog, magic included, under AES-256-CTR. The header's file
 * password is encrypted with a keyring key (AES-256-CBC, no padding); the password gives the stream's key and
 * IV. Reading decrypts the stream as it arrives, so that the framer sees a plain binlog whose offsets are the
 * ones MySQL gives (it hides the header from positions too).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, type Cipher, type Decipher } from 'node:crypto';
import {
  AES_BLOCK_LENGTH,
  decodeMysqlEncryptionHeader,
  encodeMysqlEncryptionHeader,
  MYSQL_CTR_IV_LENGTH,
  MYSQL_HEADER_LENGTH,
  MYSQL_HEADER_VERSION,
  type MysqlEncryptionHeader,
} from '../../generated/encryption.js';
import type { Context } from '../../generated/context.js';
import { BINLOG_MAGIC, ENCRYPTED_BINLOG_MAGIC } from '../../generated/header.js';
import { InvalidValueError } from '../core/errors.js';
import { Reader } from '../core/reader.js';
import { Writer } from '../core/writer.js';
import { KeyError } from '../events/encryption.js';
import { isKeyringPluginFile, parseKeyringPluginFile } from './keyring-file.js';

/** A MySQL keyring holds keys by their ids (MySQLReplicationKey_<server_uuid>_<n> for binlogs). */
export type Keyring = ReadonlyMap<string, Uint8Array>;

/** The header's bytes are a structure of the schema; it needs nothing of a binlog's context. */
const NO_CONTEXT = {} as Context;
const FILE_KEY_LENGTH = 32;
const PASSWORD_LENGTH = 32;

/**
 * The keys of a keyring file: a keyring_file plugin file (its bytes begin with "Keyring file version:") or a
 * component_keyring_file JSON file, by key id.
 */
export function parseKeyringFile(bytes: Uint8Array): Map<string, Uint8Array> {
  return isKeyringPluginFile(bytes) ? parseKeyringPluginFile(bytes) : parseKeyring(new TextDecoder().decode(bytes));
}

/**
 * The keys of a component_keyring_file JSON file ({"version": "1.0", "elements": [{"data_id", "data_type",
 * "data" (hex), "user"}]}), by data_id.
 */
export function parseKeyring(text: string): Map<string, Uint8Array> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new KeyError(`the keyring is not component_keyring_file's JSON: ${(e as Error).message}`);
  }
  const elements = (json as { elements?: unknown }).elements;
  if (!Array.isArray(elements)) throw new KeyError('the keyring has no "elements" list');
  const keys = new Map<string, Uint8Array>();
  for (const [i, element] of elements.entries()) {
    const { data_id: id, data } = element as { data_id?: unknown; data?: unknown };
    if (typeof id !== 'string' || typeof data !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(data)) {
      throw new KeyError(`keyring element ${i}: expected a "data_id" and hex "data"`);
    }
    keys.set(id, Uint8Array.from(Buffer.from(data, 'hex')));
  }
  return keys;
}

/** The stream cipher's key and first counter block, from the file password (Aes_ctr_cipher::open). */
function streamKey(password: Uint8Array): { key: Uint8Array; iv: Uint8Array } {
  const digest = createHash('sha512').update(password).digest();
  const iv = new Uint8Array(AES_BLOCK_LENGTH);
  iv.set(digest.subarray(FILE_KEY_LENGTH, FILE_KEY_LENGTH + MYSQL_CTR_IV_LENGTH));
  return { key: digest.subarray(0, FILE_KEY_LENGTH), iv };
}

/** The keyring key of a header's key id. */
function keyOf(id: string, keyring: Keyring): Uint8Array {
  const key = keyring.get(id);
  if (!key)
    throw new KeyError(`the file password is encrypted with keyring key ${id}, which the keyring does not hold`, 0);
  if (key.length !== FILE_KEY_LENGTH) throw new KeyError(`keyring key ${id} has ${key.length} bytes, not 32`, 0);
  return key;
}

/** The text of a header's key id. */
function keyIdOf(header: MysqlEncryptionHeader): string {
  return typeof header.keyId === 'string' ? header.keyId : Buffer.from(header.keyId).toString('latin1');
}

/** The file password of a header, decrypted with its keyring key. */
function filePassword(header: { encryptedPassword: Uint8Array; iv: Uint8Array }, key: Uint8Array): Uint8Array {
  const decipher = createDecipheriv('aes-256-cbc', key, header.iv);
  decipher.setAutoPadding(false);
  return Buffer.concat([decipher.update(header.encryptedPassword), decipher.final()]);
}

/**
 * Decrypts a byte stream that may be a MySQL encrypted binlog: the first bytes say. A plain binlog passes
 * through; an encrypted one is held until its header is whole, then decrypted chunk by chunk.
 */
export class MysqlFileDecryption {
  private held: Uint8Array[] = [];
  private heldLength = 0;
  private decipher: Decipher | undefined;
  /** The keyring key id the header names, for the sentence of a wrong key. */
  private keyId = '';
  private plain = false;

  /** `onHeader` is told the header's fields once it is read (a dump keeps them to write the file back). */
  constructor(
    private readonly keyring: Keyring,
    private readonly onHeader?: (fields: MysqlHeaderFields) => void,
  ) {}

  /** The plain bytes of the next chunk (none while the header is incomplete). */
  push(chunk: Uint8Array): Uint8Array {
    if (this.plain) return chunk;
    if (this.decipher) return this.decrypt(chunk);
    this.held.push(chunk);
    this.heldLength += chunk.length;
    const head = Buffer.concat(this.held);
    if (head.length < ENCRYPTED_BINLOG_MAGIC.length) return new Uint8Array(0);
    if (!ENCRYPTED_BINLOG_MAGIC.every((b, i) => head[i] === b)) return this.release(true);
    if (head.length < MYSQL_HEADER_LENGTH) return new Uint8Array(0);
    this.decipher = this.open(head.subarray(0, MYSQL_HEADER_LENGTH));
    this.held = [];
    const first = this.decrypt(head.subarray(MYSQL_HEADER_LENGTH));
    if (first.length >= BINLOG_MAGIC.length && !BINLOG_MAGIC.every((b, i) => first[i] === b)) {
      const problem = `the keyring's key ${this.keyId} does not decrypt the file`;
      throw new KeyError(`${problem}: its magic is not fe 62 69 6e after decryption`, 0);
    }
    return first;
  }

  /** The input is over: what is still held (a header cut short), as it is, for the framer to refuse. */
  end(): Uint8Array {
    return this.release(false);
  }

  private release(plain: boolean): Uint8Array {
    this.plain = plain;
    const out = Buffer.concat(this.held);
    this.held = [];
    return new Uint8Array(out.buffer, out.byteOffset, out.length);
  }

  private open(headerBytes: Uint8Array): Decipher {
    const header = decodeMysqlEncryptionHeader(new Reader(headerBytes, 0, headerBytes.length, 0), NO_CONTEXT);
    if (header.version !== MYSQL_HEADER_VERSION) {
      throw new InvalidValueError(`MySQL encrypted binlog header version ${header.version}; 1 is known`, {
        offset: 4,
      });
    }
    const keyId = (this.keyId = keyIdOf(header));
    const { key, iv } = streamKey(filePassword(header, keyOf(keyId, this.keyring)));
    this.onHeader?.({ keyId, encryptedPassword: header.encryptedPassword, iv: header.iv });
    return createDecipheriv('aes-256-ctr', key, iv);
  }

  private decrypt(chunk: Uint8Array): Uint8Array {
    const out = this.decipher!.update(chunk);
    return new Uint8Array(out.buffer, out.byteOffset, out.length);
  }
}

/** What a MySQL encrypted file is written with: the keyring key, and optionally the random parts. */
export interface MysqlEncryption {
  keyId: string;
  /** The keyring key (32 bytes). */
  key: Uint8Array;
  /** The file password (32 bytes; default random). */
  password?: Uint8Array;
  /** The IV that encrypts the password (16 bytes; default random). */
  iv?: Uint8Array;
}

/**
 * Encrypts a plain binlog as MySQL writes it with binlog_encryption=ON, chunk by chunk: the header comes out
 * before the first chunk, then the chunks under AES-256-CTR (a stream cipher, so each chunk's bytes come out as
 * they go in).
 */
export class MysqlFileEncryption {
  private header: Uint8Array | undefined;
  private readonly cipher: Cipher;

  constructor(options: MysqlEncryption) {
    const password = options.password ?? randomBytes(PASSWORD_LENGTH);
    const iv = options.iv ?? randomBytes(AES_BLOCK_LENGTH);
    if (options.key.length !== FILE_KEY_LENGTH) {
      throw new KeyError(`keyring key ${options.keyId} has ${options.key.length} bytes, not 32`);
    }
    if (password.length !== PASSWORD_LENGTH)
      throw new KeyError(`the file password has ${password.length} bytes, not 32`);
    const cbc = createCipheriv('aes-256-cbc', options.key, iv);
    cbc.setAutoPadding(false);
    const encryptedPassword = Buffer.concat([cbc.update(password), cbc.final()]);
    this.header = encodeHeader({ keyId: options.keyId, encryptedPassword, iv });
    const stream = streamKey(password);
    this.cipher = createCipheriv('aes-256-ctr', stream.key, stream.iv);
  }

  /** The encrypted bytes of the next plain chunk, the file header before the first. */
  push(plain: Uint8Array): Uint8Array[] {
    const out = this.cipher.update(plain);
    const encrypted = new Uint8Array(out.buffer, out.byteOffset, out.length);
    if (!this.header) return [encrypted];
    const header = this.header;
    this.header = undefined;
    return [header, encrypted];
  }
}

/** The header's fields that a dump keeps (MYSQL_ENCRYPTION_HEADER) so that encode writes the file back as it was. */
export interface MysqlHeaderFields {
  keyId: string;
  encryptedPassword: Uint8Array;
  iv: Uint8Array;
}

function encodeHeader(fields: MysqlHeaderFields): Uint8Array {
  const w = new Writer(MYSQL_HEADER_LENGTH);
  const header = { magic: ENCRYPTED_BINLOG_MAGIC, version: MYSQL_HEADER_VERSION, ...fields };
  encodeMysqlEncryptionHeader(w, { ...header, padding: new Uint8Array(0) }, NO_CONTEXT);
  w.bytes(new Uint8Array(MYSQL_HEADER_LENGTH - w.pos));
  return w.finish();
}

/**
 * The encryption that writes a file back with the header a dump kept: the file password decrypted with the
 * keyring key, so that the header and the whole file come out as they were.
 */
export function mysqlEncryptionOf(fields: MysqlHeaderFields, keyring: Keyring): MysqlEncryption {
  const key = keyOf(fields.keyId, keyring);
  return { keyId: fields.keyId, key, password: filePassword(fields, key), iv: fields.iv };
}

/** A plain binlog as MySQL writes it with binlog_encryption=ON: the header, then the binlog under AES-256-CTR. */
export function encryptMysqlBinlog(plain: Uint8Array, options: MysqlEncryption): Uint8Array {
  return Buffer.concat(new MysqlFileEncryption(options).push(plain));
}
