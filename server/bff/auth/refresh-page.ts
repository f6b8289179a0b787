import { escapeHtml } from '../../../shared/web/html.ts'
import { FRONT_TOKEN_COOKIE, LAST_UPDATE_COOKIE } from './page-session.ts'
import { simplePage } from '../html-page.ts'

// A page request whose access token has expired (DESIGN.md §2): the refresh token's cookie only
// travels to /auth/session/refresh, so the browser refreshes and loads the page again. The page
// keeps the SDK's two cookies as the SDK would (page-session.ts) and never loops: after two tries
// in a minute it stops and offers to sign in. A 503 (the auth core or its database out of
// reach) is no failed try: the session is intact, so the page says the service is unavailable
// and tries again after the answer's Retry-After.

export interface RefreshPageTexts {
  title: string
  failed: string
  signIn: string
  /** Said while the refresh answers 503. */
  unavailable: string
}

export function refreshPage(locale: string, nonce: string, texts: RefreshPageTexts): string {
  const script = `(function(){
var key='softshelf.sessionRefresh',now=Date.now(),tries=[];
try{tries=JSON.parse(sessionStorage.getItem(key)||'[]').filter(function(t){return now-t<60000})}catch(e){}
function fail(){document.getElementById('refresh-failed').hidden=false}
if(tries.length>=2){sessionStorage.removeItem(key);fail();return}
tries.push(now);try{sessionStorage.setItem(key,JSON.stringify(tries))}catch(e){}
var forever=';expires=Fri, 31 Dec 9999 23:59:59 GMT;path=/;samesite=lax';
fetch('/auth/session/refresh',{method:'POST',credentials:'same-origin',headers:{rid:'session','fdi-version':'4.1'}}).then(function(r){
if(r.status===503){tries.pop();try{sessionStorage.setItem(key,JSON.stringify(tries))}catch(e){}
document.getElementById('refresh-unavailable').hidden=false;
setTimeout(function(){location.reload()},1000*Math.min(60,Math.max(1,Number(r.headers.get('retry-after'))||2)));return}
var front=r.headers.get('front-token');
if(front==='remove'||r.status===401){document.cookie='${FRONT_TOKEN_COOKIE}=;expires=Thu, 01 Jan 1970 00:00:00 GMT;path=/;samesite=lax'}
else if(front){document.cookie='${FRONT_TOKEN_COOKIE}='+front+forever}
if(front||r.status===401){document.cookie='${LAST_UPDATE_COOKIE}='+Date.now()+forever}
if(r.ok||r.status===401){location.reload()}else{fail()}
},fail)})()`
  return simplePage({
    lang: locale,
    title: 'Softshelf',
    noindex: true,
    body:
      `<main><p>${escapeHtml(texts.title)}</p>` +
      `<p id="refresh-failed" hidden>${escapeHtml(texts.failed)} <a href="/login">${escapeHtml(texts.signIn)}</a></p>` +
      `<p id="refresh-unavailable" hidden>${escapeHtml(texts.unavailable)}</p>` +
      `<noscript><a href="/login">${escapeHtml(texts.signIn)}</a></noscript>` +
      `<script nonce="${escapeHtml(nonce)}">${script}</script></main>`,
  })
}
