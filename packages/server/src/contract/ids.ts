// The record ID format every schema of the contract checks (platform/ids.ts makes such IDs).
export const ID_PATTERN = '^[0-9a-f]{24}$'
