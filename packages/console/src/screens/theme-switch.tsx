// The theme switch (System / Light / Dark), in the top bar and on the sign-in screen.
import { useEffect, useState } from 'preact/hooks'
import { onThemeChange, setThemeChoice, type ThemeChoice, themeChoice } from '../theme.ts'

const CHOICES: { value: ThemeChoice; label: string }[] = [
  { value: 'system', label: 'System' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
]

export function ThemeSwitch() {
  const [choice, setChoice] = useState(themeChoice)
  // Another tab's choice (a storage event) changes this one too.
  useEffect(() => onThemeChange(() => setChoice(themeChoice())), [])
  return (
    <label class="theme-switch">
      Theme
      <select
        value={choice}
        onChange={(e) => {
          const next = e.currentTarget.value as ThemeChoice
          setThemeChoice(next)
          setChoice(next)
        }}
      >
        {CHOICES.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  )
}
