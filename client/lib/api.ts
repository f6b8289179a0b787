import { data, redirect } from 'react-router'
import type { ServerApi } from '../../shared/web/ssr-contract.ts'
import type { ErrorBody } from '../../shared/types.ts'

// One API client for loaders, two transports: on the server the BFF hands loaders a transport
// that goes straight to the product API; in the browser calls go to same-origin /api.

export interface LoaderContext {
  api?: ServerApi
  /** The page's language on the server; in the browser it is the document's. */
  locale?: string
}

export function loaderLocale(context: unknown): string {
  const fromServer = (context as LoaderContext | undefined)?.locale
  if (fromServer) return fromServer
  return typeof document === 'undefined' ? 'en' : document.documentElement.lang || 'en'
}

const browserApi: ServerApi = {
  async get(path, init) {
    const response = await fetch(path, {
      headers: { accept: 'application/json', 'accept-language': document.documentElement.lang || 'en' },
      credentials: 'same-origin',
      ...(init?.signal ? { signal: init.signal } : {}),
    })
    const type = response.headers.get('content-type') ?? ''
    const body: unknown = type.includes('application/json') ? await response.json() : null
    return { status: response.status, body }
  },
}

/** The raw answer of a GET through the loader's transport (the caller decides what a status means). */
export function apiResponse(context: unknown, path: string, signal?: AbortSignal): ReturnType<ServerApi['get']> {
  return transport(context).get(path, signal ? { signal } : undefined)
}

export interface ApiResult<T> {
  ok: boolean
  status: number
  body: T | ErrorBody | null
}

/**
 * A write from the browser to same-origin /api: JSON, the language, and the custom header the
 * BFF's anti-forgery check requires (DESIGN.md §4.4). A network failure is status 0.
 */
export async function apiSend<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<ApiResult<T>> {
  let response: Response
  try {
    response = await fetch(path, {
      method,
      headers: {
        accept: 'application/json',
        'accept-language': document.documentElement.lang || 'en',
        'content-type': 'application/json',
        rid: 'anti-csrf',
      },
      credentials: 'same-origin',
      body: JSON.stringify(body ?? {}),
    })
  } catch {
    return { ok: false, status: 0, body: null }
  }
  const type = response.headers.get('content-type') ?? ''
  const parsed = type.includes('application/json') ? ((await response.json()) as T | ErrorBody) : null
  return { ok: response.ok, status: response.status, body: parsed }
}

export function errorMessage(result: ApiResult<unknown>): string | undefined {
  return isErrorBody(result.body) ? result.body.message : undefined
}

function transport(context: unknown): ServerApi {
  return (context as LoaderContext | undefined)?.api ?? browserApi
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && 'code' in body && 'message' in body
}

/**
 * GET a JSON resource for a loader. A 404 from the API sends the browser to /404 (spec §2); on
 * the server it renders the 404 page with HTTP 404. Other failures become route errors with the
 * API's status, so the error page shows (5xx as 503/502/504 from the BFF).
 */
export async function apiGet<T>(context: unknown, path: string, signal?: AbortSignal): Promise<T> {
  const api = transport(context)
  const response = await api.get(path, signal ? { signal } : undefined)
  if (response.status >= 200 && response.status < 300) return response.body as T
  if (response.status === 404) {
    if (typeof window !== 'undefined' && !(context as LoaderContext | undefined)?.api) throw redirect('/404')
    throw data(isErrorBody(response.body) ? response.body : null, { status: 404 })
  }
  throw data(isErrorBody(response.body) ? response.body : null, { status: response.status })
}
