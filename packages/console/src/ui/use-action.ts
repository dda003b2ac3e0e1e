// One way to run what a person asked for against the API: a busy flag while it runs, the error in
// words a person can act on (describeError), and an optional success message.
import { useState } from 'preact/hooks'
import { describeError } from '../util.ts'

/** Runs a change and answers whether it succeeded (the panels' `act`, passed to their parts). */
export type Act = (work: () => Promise<unknown>) => Promise<boolean>

export function useAction(describe: (error: unknown) => string = describeError) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  const [message, setMessage] = useState('')

  /** Runs the work; answers whether it succeeded. `done` is the success message (from its result). */
  async function run<T>(work: () => Promise<T>, done?: string | ((result: T) => string)): Promise<boolean> {
    setBusy(true)
    setError('')
    setMessage('')
    try {
      const result = await work()
      const text = typeof done === 'function' ? done(result) : done
      if (text) setMessage(text)
      return true
    } catch (e) {
      setError(describe(e))
      return false
    } finally {
      setBusy(false)
    }
  }

  return {
    busy,
    error,
    message,
    run,
    /** Shows an error from outside `run` (a background load): a string is shown as it is. */
    fail: (e: unknown) => setError(describe(e)),
    clear: () => {
      setError('')
      setMessage('')
    },
  }
}
