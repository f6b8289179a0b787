import t from 'tap'
import { checkFileName, isIgnoredName, nameCandidates, utf8Length } from '../../../shared/files/names.ts'

// The drive's name rules, as the API and the client apply them.

const problem = (name: string) => {
  const checked = checkFileName(name)
  return 'problem' in checked ? checked.problem : null
}

t.test('a name is stored in NFC without surrounding spaces', async (t) => {
  t.same(checkFileName('  Cafe\u0301.txt '), { name: 'Caf\u00e9.txt' })
  t.same(checkFileName('Ångström (draft) [v2] #1 & co.tar.gz'), { name: 'Ångström (draft) [v2] #1 & co.tar.gz' }, 'ordinary punctuation is fine')
  t.same(checkFileName('...hidden'), { name: '...hidden' })
  t.same(checkFileName('名前.txt'), { name: '名前.txt' })
})

t.test('separators, control and invisible characters, "." and "..", empty and over-long names are refused', async (t) => {
  for (const name of ['a/b', '/', 'a\\b', 'nul\u0000', 'del\u007f', 'c1\u0085', 'tab\t', 'rlo\u202Etxt.exe', 'zw\u200Bj', 'bom\uFEFF', 'ls\u2028', 'lone\uD800']) {
    // Printable in the TAP output (a raw U+2028 would break its lines).
    t.equal(problem(name), 'character', name.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
  }
  t.equal(problem('.'), 'dot')
  t.equal(problem(' .. '), 'dot')
  t.equal(problem(''), 'empty')
  t.equal(problem('\u3000 '), 'empty', 'only spaces')
  t.equal(problem('a'.repeat(255)), null)
  t.equal(problem('a'.repeat(256)), 'too-long')
  t.equal(problem('€'.repeat(85)), null, '255 bytes of three-byte characters')
  t.equal(problem('€'.repeat(86)), 'too-long')
})

t.test('$RECYCLE.BIN is ignored in any letter case', async (t) => {
  for (const name of ['$RECYCLE.BIN', '$recycle.bin', '$Recycle.Bin', '$rEcYcLe.BiN', ' $RECYCLE.BIN ']) {
    t.ok(isIgnoredName(name), name)
    t.equal(problem(name), 'ignored', name)
  }
  t.notOk(isIgnoredName('RECYCLE.BIN'))
  t.notOk(isIgnoredName('$RECYCLE.BIN.old'))
})

t.test('collisions: "name (2).ext", counting on from a number already there, always within 255 bytes', async (t) => {
  const first = (name: string, isFolder: boolean, n: number) => {
    const names: string[] = []
    for (const candidate of nameCandidates(name, isFolder)) {
      names.push(candidate)
      if (names.length === n) break
    }
    return names
  }
  t.same(first('report.pdf', false, 3), ['report.pdf', 'report (2).pdf', 'report (3).pdf'])
  t.same(first('archive.tar.gz', false, 2), ['archive.tar.gz', 'archive.tar (2).gz'])
  t.same(first('photo (2).jpg', false, 3), ['photo (2).jpg', 'photo (3).jpg', 'photo (4).jpg'])
  t.same(first('my.folder', true, 2), ['my.folder', 'my.folder (2)'], 'a folder has no extension')
  t.same(first('.bashrc', false, 2), ['.bashrc', '.bashrc (2)'])
  t.same(first('notes.from the meeting on Monday', false, 2), ['notes.from the meeting on Monday', 'notes.from the meeting on Monday (2)'], 'a long "extension" is part of the name')
  t.same(first('(2)', false, 2), ['(2)', '(2) (2)'])
  const long = `${'ü'.repeat(125)}.txt`
  t.equal(utf8Length(long), 254)
  const [, second] = first(long, false, 2)
  t.ok(utf8Length(second!) <= 255)
  t.match(second!, /^ü+ \(2\)\.txt$/)
})
