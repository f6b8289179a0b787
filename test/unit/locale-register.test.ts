import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { LOCALES } from '../../shared/locales.ts'
import { root } from '../helpers.ts'

// One register per language, held in every namespace and email (locales/README.md).
// Each language lists words that only the other register uses; none may appear in any of its
// strings. The lists are the forms our texts would actually slip into, not a grammar.

const FORBIDDEN: Record<(typeof LOCALES)[number], { register: string; words: RegExp }> = {
  en: { register: 'you', words: /(?!)/ },
  // German: "Sie". No du-forms.
  de: { register: 'Sie', words: /\b(du|dich|dir|dein|deine|deinen|deinem|deiner|deines)\b/iu },
  // Czech: vykání. No ty-forms.
  cs: { register: 'vy', words: /(?<!\p{L})(tvůj|tvoje|tvoji|tvého|tvému|tvým|tvých|tvá|tebe|tobě|tebou|můžeš|chceš|máš|jsi|zadej|zkus|otevři|zkontroluj|přidej|použij|vyber|přihlas)(?!\p{L})/iu },
  // Slovak: vykanie. No ty-forms.
  sk: { register: 'vy', words: /(?<!\p{L})(tvoj|tvoja|tvoje|tvojho|tvojmu|tvojím|tvojej|teba|tebe|tebou|môžeš|chceš|máš|zadaj|skús|otvor|skontroluj|pridaj|použi|vyber|prihlás)(?!\p{L})/iu },
  // Polish: "ty" forms. No Pan/Pani/Państwo address (capitalised, as the formal address is written).
  pl: { register: 'ty', words: /(?<!\p{L})(Pan|Pani|Panu|Panią|Państwo|Państwu)(?!\p{L})/u },
  // Hungarian: "Ön". No te-forms: pronouns, second-person possessives, imperatives.
  hu: {
    register: 'Ön',
    words:
      /(?<!\p{L})(te|téged|neked|veled|tiéd|tieid|fiókod\p{L}*|jelszavad\p{L}*|könyvtárad\p{L}*|e-mail-címed\p{L}*|fájljaid\p{L}*|fájlod\p{L}*|profilod\p{L}*|adataid|eszközöd\p{L}*|eszközeid\p{L}*|telefonod\p{L}*|böngésződ\p{L}*|képed\p{L}*|add meg|írd|próbáld|válaszd|válassz|kattints|jelentkezz|nézd|nyisd|erősítsd|elfelejtetted|várj|szeretnéd|szeretnél|tudsz|húzz|ossz|tölts|hagyd|kérj|kérdezd|ellenőrizd|kezdj|okozz)(?!\p{L})/iu,
  },
  // Spanish: "tú". No usted-forms.
  es: {
    register: 'tú',
    words: /(?<!\p{L})(usted|ustedes|le rogamos|le recomendamos|le informaremos|le avisaremos|le pediremos|su elección|sus datos|su cuenta|su contraseña|su dirección de correo|su navegador|su biblioteca|su perfil|su permiso|su tarjeta|si lo rechaza|puede cambiar|vuelva a intentarlo|inicie sesión|compruebe su|actualice la página|recargue|explore|termine lo que|intenta acceder|envíenme|póngase|escríbanos|introduzca|tenga en cuenta|se le pide|le pedimos)(?!\p{L})/iu,
  },
  // Romanian: "tu". No dumneavoastră-forms. ("folosiți din" is the participle: "2 GB folosiți din 5 GB".)
  ro: {
    register: 'tu',
    words:
      /(?<!\p{L})(dumneavoastră|dvs|vă|v-ați|ați|sunteți|puteți|doriți|aveți|încercați|verificați|introduceți|alegeți|confirmați|deschideți|folosiți(?! din)|adăugați|accesați|contactați|citiți|acceptați|refuzați|creați|ștergeți|trimiteți|scrieți|schimbați|păstrați|finalizați|reveniți|autentificați-vă|conectați-vă|explorați|discutați|reîncărcați|copiați|resetați|selectați|căutați|vedeți|faceți|cereți)(?!\p{L})/iu,
  },
}

function strings(tree: unknown, prefix: string, out: Array<[string, string]> = []): Array<[string, string]> {
  if (typeof tree === 'string') out.push([prefix, tree])
  else if (Array.isArray(tree)) tree.forEach((value, index) => strings(value, `${prefix}.${index}`, out))
  else if (tree && typeof tree === 'object') for (const [key, value] of Object.entries(tree)) strings(value, `${prefix}.${key}`, out)
  return out
}

for (const locale of LOCALES) {
  const { register, words } = FORBIDDEN[locale]
  t.test(`${locale}: every string holds the "${register}" register`, async (t) => {
    const dir = path.join(root, 'locales', locale)
    const offending: string[] = []
    for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.json'))) {
      const ns = file.replace(/\.json$/, '')
      for (const [key, value] of strings(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), ns)) {
        const match = words.exec(value)
        if (match) offending.push(`${key}: "${match[0]}" in ${value.slice(0, 120)}`)
      }
    }
    t.same(offending, [], `strings in the other register (locales/README.md names ${locale}'s)`)
  })
}

t.test('the glossary names every language and its register', async (t) => {
  const readme = fs.readFileSync(path.join(root, 'locales', 'README.md'), 'utf8')
  for (const locale of LOCALES) t.match(readme, new RegExp(`^## .*\\(${locale}\\)`, 'm'), `a section for ${locale}`)
})

t.test('the markers catch the register they guard against', async (t) => {
  // Each list must be able to fail: a sentence in the forbidden register is caught.
  const samples: Record<string, string> = {
    de: 'Prüfe deine Verbindung.',
    cs: 'Zkus to znovu.',
    sk: 'Skús to znova.',
    pl: 'Czy Pan chce kontynuować?',
    hu: 'Add meg a jelszavadat.',
    es: 'Si lo rechaza, no se carga nada.',
    ro: 'Vă rugăm să încercați din nou.',
  }
  for (const [locale, sample] of Object.entries(samples)) t.match(sample, FORBIDDEN[locale as keyof typeof FORBIDDEN].words, locale)
})

t.test('the markers leave correct texts of the register alone', async (t) => {
  // Look-alikes that belong to the right register: a participle, not a verb; "su" of something else.
  const samples: Record<string, string[]> = {
    ro: ['{{used}} folosiți din {{quota}}', 'Funcționalitățile rezervate utilizatorilor autentificați.'],
    es: ['Cada programa se rige por su propia licencia.', 'Los proveedores tratan tus datos conforme a sus propias condiciones.'],
  }
  for (const [locale, texts] of Object.entries(samples))
    for (const text of texts) t.notMatch(text, FORBIDDEN[locale as keyof typeof FORBIDDEN].words, `${locale}: ${text}`)
})
