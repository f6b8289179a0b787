import { createContext, useContext, type ReactNode } from 'react'
import type { ClientConfig } from '../../shared/web/ssr-contract.ts'

const ClientConfigContext = createContext<ClientConfig | null>(null)

export function ClientConfigProvider({ value, children }: { value: ClientConfig; children: ReactNode }) {
  return <ClientConfigContext.Provider value={value}>{children}</ClientConfigContext.Provider>
}

export function useClientConfig(): ClientConfig {
  const config = useContext(ClientConfigContext)
  if (!config) throw new Error('useClientConfig outside ClientConfigProvider')
  return config
}
