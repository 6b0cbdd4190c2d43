/** A UUID's 32 hex digits in the 8-4-4-4-12 form servers print it in (MySQL's GTIDs, server_uuid). */
export function dashedUuid(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
