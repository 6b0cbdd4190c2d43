/**
 * What a binlog without a FORMAT_DESCRIPTION_EVENT is read as, and written as when `assumeFormat` allows
 * it: binlog-encoder.ts's, in a module of its own so that the command's help names it without loading
 * the encoder.
 */
export const ASSUMED_FORMAT = 'binlog v4, 19-byte event headers, no checksums';
