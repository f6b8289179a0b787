import { ProgramPage, programMetadata } from '../../../../lib/pages'

// The cached path: ISR, regenerated at most once a second; any program on its first request.
export const revalidate = 1
export const dynamicParams = true

type Props = { params: Promise<{ programId: string }> }

export function generateStaticParams() {
  return []
}

export async function generateMetadata({ params }: Props) {
  return programMetadata((await params).programId)
}

export default async function Page({ params }: Props) {
  return <ProgramPage programId={(await params).programId} />
}
