import t, { type Test } from 'tap'
import { LIBRARY_SORT_OPTIONS, PLATFORM_FILTERS } from '../../../shared/catalogue/catalogue.ts'
import { PLATFORMS } from '../../../shared/catalogue/vocabulary.ts'
import { listingSearch, pageItems, readListingState, redirectPastLastPage } from '../../../client/lib/catalogue/query.ts'

// Numbered pages (first, last, current ±1, an ellipsis for what is left out) and a page
// number past the last page sent to the last one.

t.test('the numbered pages: first, last, the current one with its neighbours, 0 for an ellipsis', async (t) => {
  t.same(pageItems(1, 1), [1])
  t.same(pageItems(2, 3), [1, 2, 3])
  t.same(pageItems(1, 11), [1, 2, 0, 11])
  t.same(pageItems(5, 11), [1, 0, 4, 5, 6, 0, 11])
  t.same(pageItems(11, 11), [1, 0, 10, 11])
  // An ellipsis never stands for a single page: the page shows instead.
  t.same(pageItems(4, 11), [1, 2, 3, 4, 5, 0, 11])
  t.same(pageItems(8, 11), [1, 0, 7, 8, 9, 10, 11])
  t.same(pageItems(3, 5), [1, 2, 3, 4, 5])
  // Every page of listings up to 40 pages long.
  const problems: string[] = []
  for (let last = 1; last <= 40; last++) {
    for (let current = 1; current <= last; current++) {
      const items = pageItems(current, last)
      const where = `page ${current} of ${last}: ${items.join(' ')}`
      if (items.length > 7) problems.push(`${where}: more than seven entries`)
      if (!items.includes(current) || items[0] !== 1 || items.at(-1) !== last) problems.push(`${where}: first, current or last missing`)
      items.forEach((page, index) => {
        const before = items[index - 1]
        if (page === 0 && items[index + 1]! - before! <= 2) problems.push(`${where}: an ellipsis for fewer than two pages`)
        if (page > 0 && before !== undefined && before !== 0 && page - before !== 1) problems.push(`${where}: pages left out without an ellipsis`)
      })
    }
  }
  t.same(problems, [])
})

function redirected(t: Test, url: string, total: number): string | null {
  const target = new URL(url, 'http://localhost')
  try {
    redirectPastLastPage(target, readListingState(target.searchParams), { total, pageSize: 24 })
    return null
  } catch (thrown) {
    const response = thrown as Response
    t.equal(response.status, 302)
    return response.headers.get('location')
  }
}

t.test('a page past the last one goes to the last page, the rest of the query kept', async (t) => {
  t.equal(redirected(t, '/library?page=99', 257), '/library?page=11')
  t.equal(redirected(t, '/library?sort=nameAsc&page=99&utm_source=mail&q=a+b', 257), '/library?sort=nameAsc&page=11&utm_source=mail&q=a+b')
  t.equal(redirected(t, '/@/category/3d?page=12', 30), '/@/category/3d?page=2')
  t.equal(redirected(t, '/library?q=zzzzzz&page=3', 0), '/library?q=zzzzzz&page=1', 'nothing matches: page 1 and its empty state')
  t.equal(redirected(t, '/library?page=11', 257), null, 'the last page is a page')
  t.equal(redirected(t, '/library?page=1', 0), null, 'page 1 always exists')
  t.equal(redirected(t, '/library', 0), null)
})

t.test('issue 27: My library\'s view is in the URL, only where the page offers it, and links keep it', async (t) => {
  const views = ['saved', 'owned'] as const
  const owned = readListingState(new URLSearchParams('view=owned&price=paid&page=2'), LIBRARY_SORT_OPTIONS, views)
  t.equal(owned.view, 'owned')
  t.equal(listingSearch({ ...owned, page: 1 }), '?price=paid&view=owned', 'a filter link of the Owned view stays in it')
  t.equal(readListingState(new URLSearchParams('view=bought'), LIBRARY_SORT_OPTIONS, views).view, 'saved', 'an unknown view is the default')
  t.equal(readListingState(new URLSearchParams('view=owned')).view, 'saved', 'the catalogue has no views: the parameter is ignored')
  t.equal(listingSearch(readListingState(new URLSearchParams('view=saved'), LIBRARY_SORT_OPTIONS, views)), '', 'the default view is left out of URLs')
})

t.test('issue 29: the platform is in the URL like the other filters; an unknown one is no filter', async (t) => {
  t.equal(readListingState(new URLSearchParams('platform=linux')).platform, 'linux')
  for (const odd of ['Linux', 'amiga', '', 'all']) t.equal(readListingState(new URLSearchParams(`platform=${odd}`)).platform, 'all', odd)
  t.equal(readListingState(new URLSearchParams()).platform, 'all')
  const state = readListingState(new URLSearchParams('platform=web&category=graphics&page=3'))
  t.equal(listingSearch(state), '?category=graphics&platform=web&page=3')
  t.equal(listingSearch({ ...state, platform: 'all', page: 1 }), '?category=graphics', 'no filter: left out of the URL')
  t.same(PLATFORM_FILTERS, [...PLATFORMS], 'the listings offer every platform of the vocabulary, in its order')
})
