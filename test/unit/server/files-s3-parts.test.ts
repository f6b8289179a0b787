import t from 'tap'
import { planParts, type PartPlan } from '../../../server/api/files/s3-storage.ts'

// How a temporary object's segments become the parts of one multipart upload (S3 storage, decision
// 015): every part but the last at least the minimum, none over its maximum, every byte once and in
// order. s3rver has no UploadPartCopy, so the copied parts are checked here, on the plan.

const limits = { minPart: 5, maxCopy: 12, maxStream: 8 }
const segmentsOf = (sizes: number[]) => {
  let offset = 0
  return sizes.map((size, index) => {
    const segment = { name: `s${index}`, offset, size, modifiedAt: new Date(0) }
    offset += size
    return segment
  })
}
/** Each part as "c:<segment>:<start>-<end>" or "s:" and its ranges. */
const show = (parts: PartPlan[]) =>
  parts.map((part) => ('copy' in part ? `c:${part.copy.segment.name}:${part.copy.start}-${part.copy.end}` : `s:${part.stream.map((slice) => `${slice.segment.name}:${slice.start}-${slice.end}`).join('+')}`))

/** What is wrong with the plan for these segment sizes; nothing, when it is valid. */
function problems(sizes: number[], copyable: boolean): string[] {
  const segments = segmentsOf(sizes)
  const parts = planParts(segments, copyable, limits)
  const found: string[] = []
  const bytes: string[] = []
  for (const [index, part] of parts.entries()) {
    const slices = 'copy' in part ? [part.copy] : part.stream
    const size = slices.reduce((sum, slice) => sum + slice.end - slice.start + 1, 0)
    if ('stream' in part && part.size !== size) found.push(`part ${index + 1} says ${part.size} bytes, holds ${size}`)
    if (index < parts.length - 1 && size < limits.minPart) found.push(`part ${index + 1} is too small (${size})`)
    if (size > ('copy' in part ? limits.maxCopy : limits.maxStream)) found.push(`part ${index + 1} is too big (${size})`)
    if ('copy' in part && !copyable) found.push(`part ${index + 1} is copied`)
    for (const slice of slices) for (let at = slice.start; at <= slice.end; at++) bytes.push(`${slice.segment.name}@${at}`)
  }
  const expected = segments.flatMap((segment) => Array.from({ length: segment.size }, (_, at) => `${segment.name}@${at}`))
  if (bytes.join() !== expected.join()) found.push('the bytes are not each there once, in order')
  return found
}

t.test('segments large enough are copied by the server; small ones are gathered and streamed', async (t) => {
  t.same(show(planParts(segmentsOf([6, 7]), true, limits)), ['c:s0:0-5', 'c:s1:0-6'])
  t.same(show(planParts(segmentsOf([1, 2, 1]), true, limits)), ['s:s0:0-0+s1:0-1+s2:0-0'], 'small ones: one streamed part')
  t.same(show(planParts(segmentsOf([2, 9]), true, limits)), ['s:s0:0-1+s1:0-2', 'c:s1:3-8'], 'a small run borrows from the large segment after it')
  t.same(show(planParts(segmentsOf([2, 6]), true, limits)), ['s:s0:0-1+s1:0-2', 's:s1:3-5'], 'the rest too short to copy is streamed as the last part')
  t.same(show(planParts(segmentsOf([6, 1]), true, limits)), ['c:s0:0-5', 's:s1:0-0'], 'a short last part is fine')
  t.same(show(planParts(segmentsOf([26]), true, limits)), ['c:s0:0-11', 'c:s0:12-20', 'c:s0:21-25'], 'over the copy limit: in pieces, none left too short')
  t.same(show(planParts(segmentsOf([6, 7]), false, limits)), ['s:s0:0-5+s1:0-1', 's:s1:2-6'], 'without UploadPartCopy everything is streamed, in parts of at most the stream limit')
})

t.test('any mix of segments makes valid parts', async (t) => {
  let seed = 12
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648
  for (let round = 0; round < 200; round++) {
    const sizes = Array.from({ length: 1 + Math.floor(random() * 6) }, () => Math.floor(random() * 30))
    t.same(problems(sizes, true), [], JSON.stringify(sizes))
    t.same(problems(sizes, false), [], `${JSON.stringify(sizes)} without UploadPartCopy`)
  }
})
