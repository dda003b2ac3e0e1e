import { render } from 'preact'
import { App } from './app.tsx'
import './styles.css'

// Opened at a viewer address (a link, a reload): the three.js chunk starts downloading now, while
// the session resumes, instead of after it, when the link is otherwise idle (bench:console-open in
// docs/benchmarks.md). The viewer's own import() gets the same module; should this download fail,
// that import reports it, so this one's failure is dropped here.
if (location.pathname.startsWith('/view/')) import('./viewer/engine.ts').catch(() => undefined)

const root = document.getElementById('app')
if (root) render(<App />, root)
