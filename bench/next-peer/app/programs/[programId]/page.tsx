import { ProgramPage, programMetadata } from '../../../lib/pages'

// The rendered path: every request renders.
export const dynamic = 'force-dynamic'

type Props = { params: Promise<{ programId: string }> }

export async function generateMetadata({ params }: Props) {
  return programMetadata((await params).programId)
}

export default async function Page({ params }: Props) {
  return <ProgramPage programId={(await params).programId} />
}
