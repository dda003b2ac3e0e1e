// The console's theme, applied before the first paint: a classic script in <head> (external, as
// the CSP allows no inline script) puts data-theme="light" or "dark" on <html>, which selects the
// colour set in styles.css. The choice (System / Light / Dark) is stored in localStorage by the
// switch (src/theme.ts); "System" follows prefers-color-scheme, live. Each change is announced
// with a `tessera:theme` event on document (the 3D viewer repaints its background on it).
;(() => {
  const KEY = 'tessera-theme'
  const root = document.documentElement
  const system = window.matchMedia('(prefers-color-scheme: dark)')
  const choice = () => {
    try {
      const stored = window.localStorage.getItem(KEY)
      return stored === 'light' || stored === 'dark' ? stored : 'system'
    } catch {
      // Storage refused (privacy settings): the switch keeps the choice on <html> for this page.
      const kept = root.dataset.themeChoice
      return kept === 'light' || kept === 'dark' ? kept : 'system'
    }
  }
  const apply = () => {
    const chosen = choice()
    const theme = chosen === 'system' ? (system.matches ? 'dark' : 'light') : chosen
    if (root.dataset.theme === theme && root.dataset.themeChoice === chosen) return
    root.dataset.themeChoice = chosen
    root.dataset.theme = theme
    document.dispatchEvent(new CustomEvent('tessera:theme', { detail: theme }))
  }
  apply()
  system.addEventListener('change', apply)
  // The switch stores the choice, then asks for it to be applied; another tab's choice arrives as
  // a storage event.
  document.addEventListener('tessera:theme-choice', apply)
  window.addEventListener('storage', (event) => {
    if (event.key === KEY) apply()
  })
})()
