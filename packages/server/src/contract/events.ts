// The event names a webhook can listen to: the spec's nine plus `file_optimization_failed`, and
// `file_shared` / `file_unshared` (an account was given, or lost, a role on a file), and
// `annotation_discussion_updated` (a reply in an annotation's discussion was posted, edited or deleted).
export const EVENT_NAMES = [
  'attribute_updated',
  'file_uploaded',
  'file_optimized',
  'file_optimization_failed',
  'file_shared',
  'file_unshared',
  'annotation_created',
  'annotation_updated',
  'annotation_removed',
  'annotation_discussion_updated',
  'configuration_created',
  'configuration_updated',
  'configuration_removed',
] as const

export type EventName = (typeof EVENT_NAMES)[number]

export function isEventName(value: string): value is EventName {
  return (EVENT_NAMES as readonly string[]).includes(value)
}
