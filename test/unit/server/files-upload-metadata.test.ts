import t from 'tap'
import { uploadTarget } from '../../../server/api/files/upload-metadata.ts'

// Where a resumable upload's file goes, from its Upload-Metadata (docs/API.md "Uploads (tus)").

t.test('filename, parentId and the folders of relativePath', async (t) => {
  t.same(uploadTarget({ filename: 'a.jpg' }), { name: 'a.jpg', parentId: null, folders: [], sink: false })
  t.same(uploadTarget({ filename: 'a.jpg', parentId: 'f1', relativePath: 'Trip/Day 1/a.jpg' }), { name: 'a.jpg', parentId: 'f1', folders: ['Trip', 'Day 1'], sink: false }, 'the file\'s own name last, as webkitRelativePath')
  t.same(uploadTarget({ filename: 'a.jpg', relativePath: 'Trip/Day 1' }).folders, ['Trip', 'Day 1'], 'or the folders alone')
  t.same(uploadTarget({ filename: 'a.jpg', relativePath: 'Trip\\Day 1\\a.jpg' }).folders, ['Trip', 'Day 1'], 'backslashes from Windows paths')
  t.same(uploadTarget({ filename: 'Cafe\u0301.txt', relativePath: 'Cafe\u0301/Cafe\u0301.txt' }), { name: 'Caf\u00e9.txt', parentId: null, folders: ['Caf\u00e9'], sink: false }, 'NFC like every name')
  t.same(uploadTarget({ filename: 'a.jpg', parentId: null, relativePath: null, filetype: 'image/jpeg' }).folders, [], 'keys without values are absent')
})

t.test('refused: no filename, a bad name or path segment, an over-long path', async (t) => {
  t.throws(() => uploadTarget({}), { code: 'FILES_UPLOAD_INVALID' })
  t.throws(() => uploadTarget({ filename: '' }), { code: 'FILES_UPLOAD_INVALID' })
  t.throws(() => uploadTarget({ filename: '..' }), { code: 'FILES_NAME_INVALID' })
  t.throws(() => uploadTarget({ filename: 'a', relativePath: 'x//a' }), { code: 'FILES_NAME_INVALID' }, 'an empty segment')
  t.throws(() => uploadTarget({ filename: 'a', relativePath: '../a' }), { code: 'FILES_NAME_INVALID' })
  t.throws(() => uploadTarget({ filename: 'a', relativePath: 'zero\u200Bwidth/a' }), { code: 'FILES_NAME_INVALID', message: /invisible/ })
  t.throws(() => uploadTarget({ filename: 'a', relativePath: `${'x/'.repeat(2049)}a` }), { code: 'FILES_UPLOAD_INVALID' })
})

t.test('$RECYCLE.BIN anywhere, in any letter case, makes a sink', async (t) => {
  for (const fields of <Array<Record<string, string>>>[
    { filename: '$RECYCLE.BIN' },
    { filename: ' $recycle.bin ' },
    { filename: 'desktop.ini', relativePath: '$Recycle.Bin/desktop.ini' },
    { filename: 'old.doc', relativePath: 'Disk/Deep/$RECYCLE.bin/S-1-5/old.doc' },
  ]) {
    t.equal(uploadTarget(fields).sink, true, JSON.stringify(fields))
  }
  t.equal(uploadTarget({ filename: 'RECYCLE.BIN.txt', relativePath: 'My $RECYCLE.BIN notes/RECYCLE.BIN.txt' }).sink, false, 'only the whole name')
})
