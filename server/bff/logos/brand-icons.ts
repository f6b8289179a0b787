// Which programs show their brand's mark: program id → the slug of its icon in Simple Icons
// (https://simpleicons.org, the `simple-icons` package, decision 024). Chosen by hand, checked by
// test/unit/server/logos.test.ts: every slug exists, is in brand-marks.json, carries no licence
// other than CC0, and no two programs share one.
//
// The rules the list follows:
// - The program's own icon, or else its maker's (developer or publisher) when that mark would
//   stand for this one program alone. A maker with several programs here and no icon per program
//   (Adobe, Apple, Autodesk, Avid, Dassault Systèmes, Microsoft, Native Instruments, Steinberg,
//   Tableau) gets none, so no two cards ever show the same mark: those programs get generated marks.
// - Only icons Simple Icons publishes without a licence of their own, or under CC0. Icons whose
//   owners attach another licence (GIMP, Inkscape, KiCad, Godot, LibreOffice Calc, Apache
//   Superset, Apache OpenOffice, Pandoc, Sphinx, Jekyll) would need attribution or notices; they
//   are left out.
// - Never a different brand that happens to share the name: "orange" is the telecom company,
//   "origin" EA's game store, "reason" the ReasonML language.
// - A mark, not a wordmark too wide to read on a 48 px card: what the icon draws must be at least
//   a fifth of the tile high (test/e2e/logos.spec.ts measures every logo in Chromium). Comsol,
//   Zoom, VEGAS, FMOD and Ansys publish only their lettering (2.2 to 7.5 of 24 units high) and get
//   generated marks.
// Everything else gets a generated mark (generated-marks.ts).
export const BRAND_ICONS: Readonly<Record<string, string>> = {
  // 3D
  blender: 'blender',
  'autodesk-maya': 'autodeskmaya',
  'cinema-4d': 'cinema4d',
  houdini: 'houdini',
  rhinoceros: 'rhinoceros',
  // Graphics
  krita: 'krita',
  figma: 'figma',
  sketch: 'sketch',
  penpot: 'penpot',
  'coreldraw-graphics-suite': 'coreldraw',
  aseprite: 'aseprite',
  // Architecture and engineering
  autocad: 'autocad',
  'autodesk-revit': 'autodeskrevit',
  freecad: 'freecad',
  archicad: 'archicad',
  sketchup: 'sketchup',
  'vectorworks-architect': 'vectorworks',
  openscad: 'openscad',
  ltspice: 'ltspice',
  // Video and motion
  'davinci-resolve': 'davinciresolve',
  // Blackmagic Design's other program here; DaVinci Resolve has its own mark.
  'fusion-studio': 'blackmagicdesign',
  kdenlive: 'kdenlive',
  'obs-studio': 'obsstudio',
  'wondershare-filmora': 'wondersharefilmora',
  nuke: 'nuke',
  'vlc-media-player': 'vlcmediaplayer',
  ffmpeg: 'ffmpeg',
  // Game development
  unity: 'unity',
  'unreal-engine': 'unrealengine',
  gamemaker: 'gamemaker',
  'construct-3': 'construct3',
  'cocos-creator': 'cocos',
  'roblox-studio': 'robloxstudio',
  renpy: 'renpy',
  spine: 'spine',
  wwise: 'wwise',
  playcanvas: 'playcanvas',
  scratch: 'scratch',
  // Audio and music
  audacity: 'audacity',
  'pro-tools': 'protools',
  lmms: 'lmms',
  'bitwig-studio': 'bitwig',
  ardour: 'ardour',
  // Reason Studios' mark (the maker's only program here), not "reason" (ReasonML).
  reason: 'reasonstudios',
  'guitar-pro': 'guitarpro',
  // Data and analytics
  'knime-analytics-platform': 'knime',
  'rstudio-desktop': 'rstudioide',
  jupyterlab: 'jupyter',
  qgis: 'qgis',
  'dbeaver-community': 'dbeaver',
  'gnu-octave': 'octave',
  'anaconda-distribution': 'anaconda',
  spyder: 'spyderide',
  metabase: 'metabase',
  grafana: 'grafana',
  'mysql-workbench': 'mysql',
  // Its publisher, the PostgreSQL Global Development Group.
  pgadmin: 'postgresql',
  'wolfram-mathematica': 'wolframmathematica',
  // Productivity
  libreoffice: 'libreoffice',
  'onlyoffice-desktop-editors': 'onlyoffice',
  notion: 'notion',
  obsidian: 'obsidian',
  todoist: 'todoist',
  evernote: 'evernote',
  thunderbird: 'thunderbird',
  '7-zip': '7zip',
  'notepad-plus-plus': 'notepadplusplus',
  'sublime-text': 'sublimetext',
  bitwarden: 'bitwarden',
  keepassxc: 'keepassxc',
  '1password': '1password',
  zotero: 'zotero',
  joplin: 'joplin',
  autohotkey: 'autohotkey',
  dropbox: 'dropbox',
  // Publishing
  overleaf: 'overleaf',
  typst: 'typst',
  hugo: 'hugo',
  wordpress: 'wordpress',
  ghost: 'ghost',
  joomla: 'joomla',
  drupal: 'drupal',
  // Simulation
  // Publishers with one program here.
  'kerbal-space-program': 'privatedivision',
  'cities-skylines': 'paradoxinteractive',
  'the-sims-4': 'ea',
}
