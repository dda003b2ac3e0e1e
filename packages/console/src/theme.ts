// The theme switch's side: public/theme.js applies the theme (before the first paint, and on each
// change); this stores the choice and asks it to apply it, and lets screens follow the theme.
export type ThemeChoice = 'system' | 'light' | 'dark'

const KEY = 'tessera-theme'

export function themeChoice(): ThemeChoice {
  const chosen = document.documentElement.dataset.themeChoice
  return chosen === 'light' || chosen === 'dark' ? chosen : 'system'
}

export function setThemeChoice(choice: ThemeChoice): void {
  try {
    if (choice === 'system') window.localStorage.removeItem(KEY)
    else window.localStorage.setItem(KEY, choice)
  } catch {
    // Storage refused: the choice lasts until the page is left (theme.js reads the data attribute).
    document.documentElement.dataset.themeChoice = choice
  }
  document.dispatchEvent(new Event('tessera:theme-choice'))
}

/** Calls `listener` after each change of the applied theme; returns the unsubscribe. */
export function onThemeChange(listener: () => void): () => void {
  document.addEventListener('tessera:theme', listener)
  return () => document.removeEventListener('tessera:theme', listener)
}

/** Keeps the 3D view's background on the theme's `--viewer-bg` (read where `element` sits). */
export function followViewerBackground(element: HTMLElement, apply: (css: string) => void): () => void {
  const paint = () => {
    const colour = getComputedStyle(element).getPropertyValue('--viewer-bg').trim()
    if (colour) apply(colour)
  }
  paint()
  return onThemeChange(paint)
}
