// Chromium through playwright-core: Debian's /usr/bin/chromium (or CHROMIUM_PATH), headless, with
// software WebGL (SwiftShader) so the viewer renders without a GPU.
import { existsSync } from 'node:fs'
import { type Browser, chromium, type Page } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install -y chromium)`)
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox'],
  })
}

/** Console errors and page errors, minus the HTTP statuses a test provokes on purpose. */
export function collectErrors(page: Page, expectedStatuses: number[] = []): string[] {
  const errors: string[] = []
  const expected = new RegExp(`status of (${expectedStatuses.join('|') || 'none'})\\b`)
  page.on('console', (message) => {
    if (message.type() === 'error' && !expected.test(message.text())) errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`))
  return errors
}

/** Share of canvas pixels that differ from the viewer's background colour. */
export function paintedShare(page: Page): Promise<number> {
  return page.evaluate(() => {
    const source = document.querySelector('.viewport canvas') as HTMLCanvasElement
    const copy = document.createElement('canvas')
    copy.width = source.width
    copy.height = source.height
    const ctx = copy.getContext('2d') as CanvasRenderingContext2D
    ctx.drawImage(source, 0, 0)
    const data = ctx.getImageData(0, 0, copy.width, copy.height).data
    let painted = 0
    let total = 0
    for (let i = 0; i < data.length; i += 4 * 7) {
      total++
      const d =
        Math.abs((data[i] ?? 0) - 0xee) +
        Math.abs((data[i + 1] ?? 0) - 0xf1) +
        Math.abs((data[i + 2] ?? 0) - 0xf5)
      if (d > 24) painted++
    }
    return painted / total
  })
}

/** Signs in at the console's start page as the server's admin, and waits for "My files". */
export async function signInAsAdmin(
  page: Page,
  server: { baseUrl: string; adminPassword: string },
): Promise<void> {
  await page.goto(server.baseUrl)
  await page.getByLabel('Username').fill('admin')
  await page.getByLabel('Password', { exact: true }).fill(server.adminPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'My files' }).waitFor()
}
