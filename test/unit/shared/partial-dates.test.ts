import t from 'tap'
import { formatPartialDate, mayPrecede, parsePartialDate, partialDate } from '../../../shared/catalogue/partial-dates.ts'

t.test('a date is read with the precision it is written in, and only a real one', async (t) => {
  t.same(parsePartialDate('1998'), { start: '1998-01-01', precision: 'year' })
  t.same(parsePartialDate('2003-05'), { start: '2003-05-01', precision: 'month' })
  t.same(parsePartialDate('2003-05-14'), { start: '2003-05-14', precision: 'day' })
  t.same(parsePartialDate('2024-02-29'), { start: '2024-02-29', precision: 'day' }, 'a leap day')
  for (const bad of ['98', '1998-1', '1998-13', '1998-00', '2023-02-29', '2003-05-32', '2003-05-14T00:00', ' 1998', '1998-02-', 'MCMXCVIII', '']) {
    t.equal(parsePartialDate(bad), null, JSON.stringify(bad))
  }
  t.equal(partialDate('1998-01-01', 'year'), '1998')
  t.equal(partialDate('2003-05-01', 'month'), '2003-05')
  t.equal(partialDate('2003-05-14', 'day'), '2003-05-14')
})

t.test('shown in a language, a date says no more than is known', async (t) => {
  t.equal(formatPartialDate('1998', 'year', 'en'), '1998')
  t.equal(formatPartialDate('1998', 'year', 'de'), '1998')
  t.equal(formatPartialDate('1998-02', 'month', 'en'), 'February 1998')
  t.equal(formatPartialDate('1998-02', 'month', 'de'), 'Februar 1998')
  t.equal(formatPartialDate('1998-02', 'month', 'hu'), '1998. február')
  t.equal(formatPartialDate('1990-02-19', 'day', 'en'), 'Feb 19, 1990')
  t.equal(formatPartialDate('1990-02-19', 'day', 'de'), '19.02.1990')
  t.equal(formatPartialDate('1998-01-01', 'year', 'en'), '1998', 'a first day given with a year precision shows the year')
})

t.test('an order check compares only what both dates say', async (t) => {
  t.ok(mayPrecede('1998', '2024-10-14'))
  t.ok(mayPrecede('2024-11-19', '2024-11'), 'the same month: may be in order')
  t.ok(mayPrecede('2024', '2024-01'))
  t.notOk(mayPrecede('2025-03', '2024'))
  t.notOk(mayPrecede('2024-11-19', '2024-11-18'))
})
