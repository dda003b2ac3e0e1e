// Why a delivery attempt failed: the codes the delivery log shows and the metrics count.
export const ATTEMPT_ERROR_CODES = [
  'E_TIMEOUT',
  'E_CONNECT',
  'E_DNS',
  'E_SSRF',
  'E_STATUS',
  'E_CONTENT_TYPE',
  'E_BODY',
] as const

export type AttemptErrorCode = (typeof ATTEMPT_ERROR_CODES)[number]
