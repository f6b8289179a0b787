import t from 'tap'
import { compareVersions } from '../../../server/api/catalogue/releases.ts'

// Which of two releases is newer, by their version strings as people read them (a feed's
// version that goes backwards is ignored by it; the console orders a history by it).

t.test('versions compare as people read them', async (t) => {
  const older: Array<[string, string, string]> = [
    ['4.9', '4.10', 'runs of digits are numbers'],
    ['1.2', '1.2.3', 'a part more is newer'],
    ['2.0-rc1', '2.0', 'a pre-release is before its release'],
    ['2.0-beta', '2.0-rc1', 'pre-release tags by name'],
    ['v1.9', '1.10', 'a leading v is no part of it'],
    ['2024.12', '2025.1', 'calendar versions'],
    ['3.6.9', '3.6.10', 'the last part too'],
    ['1.0a', '1.0b', 'letters after digits'],
  ]
  for (const [a, b, why] of older) {
    t.equal(compareVersions(a, b), -1, `${a} < ${b}: ${why}`)
    t.equal(compareVersions(b, a), 1, `${b} > ${a}`)
  }
  t.equal(compareVersions('2.0', '2.0.0'), 0, 'a trailing zero part is the same version')
  t.equal(compareVersions(' 4.4 ', '4.4'), 0, 'spaces around are not part of it')
  t.equal(compareVersions('V4.4', 'v4.4'), 0)
  t.equal(compareVersions('1.0_1', '1.0-1'), 0, 'separators are separators')
})
