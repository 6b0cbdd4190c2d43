/**
 * The encrypted events of a MariaDB encrypt_binlog file (or a Percona Server 5.7 one): after its
 * START_ENCRYPTION every event is ciphertext but for its length, which the commands keep as bytes
 * (ENCRYPTED_EVENT) when they have no key. They must not pass unsaid: each file's are said once on stderr,
 * with the key they need, and counted, so that the command ends with exit 7 (something left undecoded).
 */
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { ENCRYPTED } from '../runtime/events/event-codec.js';

const STARTS = new Set(['START_ENCRYPTION_EVENT', 'START_5_7_ENCRYPTION_EVENT']);

/** MariaDB encrypts binlogs with key id 1 of its key management plugin (ENCRYPTION_KEY_SYSTEM_DATA). */
const BINLOG_KEY_ID = 1;

interface Start {
  event: BinlogEvent;
  scheme: number;
  keyVersion: number;
}

export class EncryptedEvents {
  /** The encrypted events seen. */
  count = 0;
  private start: Start | undefined;
  private said = false;

  constructor(private readonly err: NodeJS.WritableStream = process.stderr) {}

  /** Takes in an event as it passes: a START_ENCRYPTION, or an encrypted event (the first after each start said). */
  see(e: BinlogEvent): void {
    if (STARTS.has(e.type)) {
      // Both starts have one body (Percona's 5.7 took MariaDB's); an event made by hand may lack it.
      const fields = 'scheme' in e && 'keyVersion' in e ? e : { scheme: 0, keyVersion: 0 };
      this.start = { event: e, scheme: Number(fields.scheme), keyVersion: Number(fields.keyVersion) };
      this.said = false;
      return;
    }
    if (e.type !== ENCRYPTED) return;
    this.count++;
    if (this.said) return;
    this.said = true;
    this.err.write(`binlog: ${this.sentence(e)}\n`);
  }

  /** The sentence that says where the encrypted events begin, which key they need, and what became of them. */
  private sentence(first: BinlogEvent): string {
    const s = this.start;
    const file = first.file ? `${first.file}: ` : '';
    const start = s && ` (scheme ${s.scheme}, START_ENCRYPTION at ${s.event.pos})`;
    const key = s ? `key id ${BINLOG_KEY_ID}, key version ${s.keyVersion}${start}` : 'a key';
    const where = `${file}the events from offset ${first.pos} on are encrypted (encrypt_binlog)`;
    return `${where} and cannot be read without ${key}: they are kept as bytes, as ENCRYPTED_EVENT.`;
  }
}
