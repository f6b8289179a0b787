// Crawlers and bots do not get the client-side error page; their errors are only reported (spec §8).
const BOT_PATTERN =
  /bot\b|crawl|spider|slurp|bingpreview|mediapartners|facebookexternalhit|embedly|quora link preview|outbrain|pinterest|vkshare|w3c_validator|whatsapp|python-requests|curl\/|wget\//i

export function isBotUserAgent(userAgent: string | undefined | null): boolean {
  return typeof userAgent === 'string' && BOT_PATTERN.test(userAgent)
}
