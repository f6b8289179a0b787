// Catalogue vocabulary of the spec (§2): category ids, library filter tabs and sort options.

/** The ten program categories; "all" is the filter value meaning no category. */
export const PROGRAM_CATEGORIES = [
  '3d',
  'graphics',
  'architecture-engineering',
  'video-motion',
  'game-development',
  'data-analytics',
  'audio-music',
  'productivity',
  'publishing',
  'simulation',
] as const
export type ProgramCategory = (typeof PROGRAM_CATEGORIES)[number]
export const ALL_CATEGORIES = 'all'

export const LIBRARY_FILTER_TABS = ['all', 'free', 'paid'] as const
export const SORT_OPTIONS = ['namePopular', 'nameAsc', 'nameDesc'] as const
