/** A MySQL 8.0.32 FORMAT_DESCRIPTION with CRC32, its post-header lengths as that server writes them. */
import type { BinlogEventInput } from '../../runtime/events/event-codec.js';

export const MYSQL_8_0_32_FDE: Extract<BinlogEventInput, { type: 'FORMAT_DESCRIPTION_EVENT' }> = {
  header: { timestamp: 1_700_000_000, typeCode: 15, serverId: 1, flags: 0 },
  type: 'FORMAT_DESCRIPTION_EVENT',
  binlogVersion: 4,
  serverVersion: '8.0.32',
  createTimestamp: 0,
  headerLength: 19,
  postHeaderLengths: [
    0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 98, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0, 0, 10, 10, 10, 42, 42, 0, 18,
    52, 0, 10, 40, 0,
  ],
  checksumAlg: 'BINLOG_CHECKSUM_ALG_CRC32',
};
