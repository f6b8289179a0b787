import 'i18next'
import type auth from '../locales/en/auth.json'
import type catalogue from '../locales/en/catalogue.json'
import type checkout from '../locales/en/checkout.json'
import type common from '../locales/en/common.json'
import type compare from '../locales/en/compare.json'
import type files from '../locales/en/files.json'
import type home from '../locales/en/home.json'
import type notifications from '../locales/en/notifications.json'
import type legal from '../locales/en/legal.json'
import type operator from '../locales/en/operator.json'
import type profile from '../locales/en/profile.json'
import type savedSearches from '../locales/en/saved-searches.json'
import type streaming from '../locales/en/streaming.json'
import type sentry from '../locales/en/sentry.json'

// English is the type source of translation keys: t('…') with a key that English lacks does not
// compile (CONVENTIONS.md §8).
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common'
    resources: {
      common: typeof common
      home: typeof home
      legal: typeof legal
      catalogue: typeof catalogue
      auth: typeof auth
      profile: typeof profile
      files: typeof files
      streaming: typeof streaming
      sentry: typeof sentry
      checkout: typeof checkout
      operator: typeof operator
      'saved-searches': typeof savedSearches
      compare: typeof compare
      notifications: typeof notifications
    }
  }
}
