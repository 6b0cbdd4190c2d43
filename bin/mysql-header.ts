/**
 * A MySQL 8 encrypted binlog's file header in a dump. The header is no event, yet encode needs what it holds
 * to write the file back byte for byte: `dump --keyring` writes it as a line of its own before the first
 * event, MYSQL_ENCRYPTION_HEADER, with the key id, the file password as the file holds it (encrypted with the
 * keyring key, so the dump does not give it away) and the IV that encrypted it. `encode --keyring` decrypts
 * the password with the same keyring and encrypts the file under it again.
 */
import { jBytes, toHex } from '../runtime/core/dump-json.js';
import { EncodeError } from '../runtime/core/errors.js';
import type { MysqlHeaderFields } from '../runtime/io/mysql-encryption.js';

export const MYSQL_HEADER_LINE = 'MYSQL_ENCRYPTION_HEADER';

/** The dump's line of a header. */
export function mysqlHeaderLine(fields: MysqlHeaderFields, file: string | undefined): object {
  return {
    ...(file === undefined ? {} : { file }),
    type: MYSQL_HEADER_LINE,
    keyId: fields.keyId,
    encryptedPassword: { hex: toHex(fields.encryptedPassword) },
    iv: { hex: toHex(fields.iv) },
  };
}

/** Whether a line of JSON is a header's line. */
export function isMysqlHeaderLine(json: unknown): json is Record<string, unknown> {
  return typeof json === 'object' && json !== null && (json as { type?: unknown }).type === MYSQL_HEADER_LINE;
}

/** A header's fields from its line; `source` names the line in errors. */
export function mysqlHeaderOf(json: Record<string, unknown>, source: string): MysqlHeaderFields {
  if (typeof json.keyId !== 'string') throw new EncodeError('expected the keyring key id, a string', `${source}.keyId`);
  const encryptedPassword = jBytes(json.encryptedPassword, `${source}.encryptedPassword`);
  const iv = jBytes(json.iv, `${source}.iv`);
  if (encryptedPassword.length !== 32)
    throw new EncodeError('the encrypted file password has 32 bytes', `${source}.encryptedPassword`);
  if (iv.length !== 16) throw new EncodeError('the IV has 16 bytes', `${source}.iv`);
  return { keyId: json.keyId, encryptedPassword, iv };
}
