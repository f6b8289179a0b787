import t from 'tap'
import { isPollingExcluded } from '../../../client/lib/notices/use-version-polling.ts'
import { versionWatchStep } from '../../../client/lib/notices/version-watch.ts'

const fresh = { firstVersion: null, versionNoticeShown: false }

t.test('the first version seen is remembered without a notice', async (t) => {
  const step = versionWatchStep(fresh, { version: '1.0.716+a' }, null)
  t.equal(step.state.firstVersion, '1.0.716+a')
  t.equal(step.announceNewVersion, false)
  t.equal(step.storeMaintenance, undefined)
})

t.test('a different version later announces a new version once', async (t) => {
  const first = versionWatchStep(fresh, { version: 'a' }, null).state
  const second = versionWatchStep(first, { version: 'b' }, null)
  t.equal(second.announceNewVersion, true)
  const third = versionWatchStep(second.state, { version: 'c' }, null)
  t.equal(third.announceNewVersion, false, 'not repeated every 6 s')
  t.equal(versionWatchStep(first, { version: 'a' }, null).announceNewVersion, false)
})

t.test('a new maintenance time is announced and stored; the same time does nothing', async (t) => {
  const step = versionWatchStep(fresh, { version: 'a', maintenanceTime: '2026-12-01T22:00:00.000Z' }, null)
  t.equal(step.announceMaintenance, '2026-12-01T22:00:00.000Z')
  t.equal(step.storeMaintenance, '2026-12-01T22:00:00.000Z')
  const same = versionWatchStep(step.state, { version: 'a', maintenanceTime: '2026-12-01T23:00:00+01:00' }, '2026-12-01T22:00:00.000Z')
  t.equal(same.announceMaintenance, null, 'the same instant in another notation is unchanged')
  t.equal(same.storeMaintenance, undefined)
  const moved = versionWatchStep(step.state, { version: 'a', maintenanceTime: '2026-12-02T22:00:00Z' }, '2026-12-01T22:00:00.000Z')
  t.equal(moved.announceMaintenance, '2026-12-02T22:00:00.000Z')
})

t.test('an absent maintenance time clears the stored one', async (t) => {
  const step = versionWatchStep(fresh, { version: 'a' }, '2026-12-01T22:00:00.000Z')
  t.equal(step.storeMaintenance, null)
  t.equal(step.announceMaintenance, null)
})

t.test('polling is off on /streaming and /sharing only', async (t) => {
  t.equal(isPollingExcluded('/streaming'), true)
  t.equal(isPollingExcluded('/sharing/abc'), true)
  t.equal(isPollingExcluded('/'), false)
  t.equal(isPollingExcluded('/sharingfoo'), false)
  t.equal(isPollingExcluded('/library'), false)
})
