import { CATEGORY_NAMES_EN, LICENSE_TYPE_NAMES_EN, type ProgramCategory } from '../shared/catalogue/catalogue.ts'
import type { ProgramDetail } from '../shared/catalogue/program-schemas.ts'
import { PAGE_TITLE, PRODUCT_NAME } from '../shared/constants.ts'
import { COMPARE_MAX } from '../shared/catalogue/living.ts'
import { OG_IMAGE_HEIGHT, OG_IMAGE_WIDTH, ogImagePath } from '../shared/catalogue/logos.ts'
import type { HeadBuilder, HeadBuilderName } from './lib/head/head.ts'
import type { ListingData } from './pages/catalogue-listing.tsx'
import type { CompareData } from './pages/compare/compare.tsx'

// The head of each public page built from its data (client/lib/head/head.ts): English titles (spec §1),
// descriptions in the visitor's language, structured data where search engines use it. Routes name
// their builder (`handle.head`); pages whose head never changes carry it in the route table.

/** The Atom feed of the newest releases (server/bff/routes/feeds.ts), and of one category. */
const RELEASES_FEED = { title: 'Softshelf: new releases', path: '/feeds/releases.atom' }
const categoryFeed = (id: ProgramCategory) => ({ title: `Softshelf: new releases in ${CATEGORY_NAMES_EN[id]}`, path: `/feeds/category/${id}.atom` })

export const homeHead: HeadBuilder = ({ appUrl }) => ({
  title: PAGE_TITLE,
  feed: RELEASES_FEED,
  // Lets search engines offer a search box that lands on the library's search.
  jsonLd: {
    '@context': 'https://schema.org',
    '@type': 'WebSite',
    name: PRODUCT_NAME,
    url: `${appUrl}/`,
    potentialAction: {
      '@type': 'SearchAction',
      target: { '@type': 'EntryPoint', urlTemplate: `${appUrl}/library?q={search_term_string}` },
      'query-input': 'required name=search_term_string',
    },
  },
})

export const listingHead: HeadBuilder = ({ data, t }) => {
  if (!data) return null
  const { scope } = data as ListingData
  switch (scope.kind) {
    case 'library':
      return { title: 'Software catalogue', description: t('catalogue:meta.library'), feed: RELEASES_FEED }
    case 'category':
      return {
        title: `${CATEGORY_NAMES_EN[scope.id]} software`,
        description: t('catalogue:meta.category', { category: t(`common:categories.${scope.id}`) }),
        feed: categoryFeed(scope.id),
      }
    case 'licenseType':
      return {
        title: `${LICENSE_TYPE_NAMES_EN[scope.id]} programs`,
        description: t('catalogue:meta.licenseType', { licenseType: t(`catalogue:licenseTypes.${scope.id}`) }),
      }
    case 'developer':
      return { title: `Programs by ${scope.name}`, description: t('catalogue:meta.developer', { name: scope.name }) }
    case 'publisher':
      return { title: `Programs published by ${scope.name}`, description: t('catalogue:meta.publisher', { name: scope.name }) }
  }
}

/** schema.org's application categories that fit ours best. */
const APPLICATION_CATEGORY: Record<ProgramCategory, string> = {
  '3d': 'DesignApplication',
  graphics: 'DesignApplication',
  'architecture-engineering': 'DesignApplication',
  'video-motion': 'MultimediaApplication',
  'game-development': 'DeveloperApplication',
  'data-analytics': 'BusinessApplication',
  'audio-music': 'MultimediaApplication',
  productivity: 'BusinessApplication',
  publishing: 'BusinessApplication',
  simulation: 'BusinessApplication',
}

const PLATFORM_NAMES = { windows: 'Windows', macos: 'macOS', linux: 'Linux', web: 'Web browser' } as const

export const programHead: HeadBuilder = ({ data, appUrl, logosVersion }) => {
  if (!data) return null
  const program = data as ProgramDetail
  const organisation = (kind: 'developer' | 'publisher', ref: { id: string; name: string }) => ({
    '@type': 'Organization',
    name: ref.name,
    url: `${appUrl}/${kind}/${ref.id}`,
  })
  const primary = program.categories[0]
  return {
    title: `${program.name} by ${program.developer.name}`,
    // The summary, in the visitor's language where translated: the best description there is.
    description: program.summary,
    // The program's card (logo and name), rendered by the BFF as PNG for link previews.
    image: { url: `${appUrl}${ogImagePath(program.id, logosVersion)}`, width: OG_IMAGE_WIDTH, height: OG_IMAGE_HEIGHT, alt: `${program.name} — ${PRODUCT_NAME}` },
    jsonLd: {
      '@context': 'https://schema.org',
      '@type': 'SoftwareApplication',
      name: program.name,
      description: program.summary,
      url: `${appUrl}/programs/${program.id}`,
      ...(primary ? { applicationCategory: APPLICATION_CATEGORY[primary] } : {}),
      operatingSystem: program.platforms.map((platform) => PLATFORM_NAMES[platform]).join(', '),
      softwareVersion: program.version,
      // ISO 8601 with only what is known ("1998", "2024-10"), as schema.org's Date allows.
      datePublished: program.released,
      dateModified: program.updated,
      inLanguage: program.languages,
      isAccessibleForFree: program.isFree,
      author: organisation('developer', program.developer),
      publisher: organisation('publisher', program.publisher),
      offers: program.price
        ? { '@type': 'Offer', price: program.price.amount.toFixed(2), priceCurrency: program.price.currency }
        : { '@type': 'Offer', price: '0' },
    },
  }
}

/** The drive's public page. */
export const filesHead: HeadBuilder = ({ t }) => ({ title: 'Files', description: t('files:meta.description') })

/**
 * A comparison. Never indexed: every set of programs is a page of its own, and each
 * program's page is the one to find.
 */
export const compareHead: HeadBuilder = ({ data, t }) => {
  if (!data) return null
  const names = (data as CompareData).problems.length > 0 ? [] : (data as CompareData).programs.map((program) => program.name)
  if (names.length === 0) return { title: 'Compare programs', description: t('compare:meta.empty', { max: COMPARE_MAX }), noindex: true }
  return { title: `Compare ${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`, description: t('compare:meta.programs', { names: names.join(', ') }), noindex: true }
}

/** The builders by the name routes give them. */
export const pageHeads: Readonly<Record<HeadBuilderName, HeadBuilder>> = {
  home: homeHead,
  listing: listingHead,
  program: programHead,
  files: filesHead,
  compare: compareHead,
}
