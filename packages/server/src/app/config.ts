// The composition root's half of configuration: every owner's setting declarations in one list,
// parsed and validated once at start-up (platform/settings.ts). The kernel imports no feature, so
// the list is assembled here; the order is the order of `tessera-server serve --help` (kernel first).
import { deliverySettings } from '../delivery/index.ts'
import { eventSettings } from '../events/index.ts'
import { accountSettings } from '../modules/accounts/index.ts'
import { annotationSettings } from '../modules/annotations/index.ts'
import { configurationSettings } from '../modules/configurations/index.ts'
import { conversionSettings } from '../modules/conversion/index.ts'
import { discussionSettings } from '../modules/discussions/index.ts'
import { fileItemSettings } from '../modules/file-items/index.ts'
import { fileSettings } from '../modules/files/index.ts'
import { linkSettings } from '../modules/links/index.ts'
import { liveSettings } from '../modules/live/index.ts'
import { sceneSettings } from '../modules/scene/index.ts'
import { sessionSettings } from '../modules/sessions/index.ts'
import { webhookSettings } from '../modules/webhooks/index.ts'
import { type Config, kernelSettings } from '../platform/config.ts'
import { type Env, loadSettings, settingsHelp } from '../platform/settings.ts'
import { streamSettings } from '../stream/index.ts'

const SETTINGS = [
  ...kernelSettings,
  ...sessionSettings,
  ...accountSettings,
  ...fileSettings,
  ...fileItemSettings,
  ...linkSettings,
  ...annotationSettings,
  ...discussionSettings,
  ...configurationSettings,
  ...sceneSettings,
  ...conversionSettings,
  ...webhookSettings,
  ...eventSettings,
  ...streamSettings,
  ...liveSettings,
  ...deliverySettings,
]

// Every key of `Config` (the kernel's and the owners' merged declarations) needs a declaration in the
// list above: a key missing here fails the typecheck ("property 'key' is missing").
type Undeclared = Exclude<keyof Config, (typeof SETTINGS)[number]['key']>
const everyKeyDeclared: Record<Undeclared, 'declared in app/config.ts'> = {}
void everyKeyDeclared

/** Parses the environment; throws one ConfigError naming every bad variable. */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  return loadSettings(SETTINGS, env, overrides)
}

/** The variable table as `tessera-server serve --help` prints it. */
export function configHelp(): string {
  return settingsHelp(SETTINGS)
}
