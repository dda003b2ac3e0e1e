// `bench:delivery -- --cpu-prof-dir DIR`: a V8 CPU profile of this process during one throughput
// phase (Tessera's server code runs here, as do the peers' producers and workers; their storage
// runs in Redis or PostgreSQL), written to DIR for Chrome DevTools, and summed up on the console:
// where the busy time went, by the function that was running. Native functions show by name with
// "(native)": better-sqlite3's `run` and `all` are SQLite executing statements, `writev` is socket
// writes (on loopback the kernel's delivery to the receiving process counts here too). The
// profiler's own work (node:inspector) is left out.
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import path from 'node:path'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
}

interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

/** Where a frame comes from, short: a package's name, or a path inside this repository. */
function placeOf({ url, lineNumber }: ProfileNode['callFrame']): string {
  if (url === '') return '(native)'
  const inPackage = url.split('/node_modules/').at(-1) ?? url
  const file = inPackage.replace(/^file:\/\/.*?\/(packages|bench)\//, '$1/')
  return `${file}:${lineNumber + 1}`
}

/** The `top` functions by self time, as shares of the busy (not idle) samples. */
function selfTimeSummary(profile: Profile, top: number): string[] {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
  const byFunction = new Map<string, number>()
  let busy = 0
  for (const [i, id] of profile.samples.entries()) {
    const frame = byNode.get(id)
    const delta = profile.timeDeltas[i] ?? 0
    if (frame === undefined || frame.functionName === '(idle)' || frame.url === 'node:inspector') continue
    busy += delta
    // V8's own entries, such as (garbage collector) and (program), have no place.
    const name = frame.functionName.startsWith('(')
      ? frame.functionName
      : `${frame.functionName || '(anonymous)'} ${placeOf(frame)}`
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta)
  }
  return [...byFunction.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => `${((us / Math.max(busy, 1)) * 100).toFixed(1).padStart(5)} %  ${name}`)
}

/** Profiles `phase` into DIR/<file>.cpuprofile and prints its summary. */
export async function profiled<T>(dir: string, file: string, phase: () => Promise<T>): Promise<T> {
  const session = new Session()
  session.connect()
  try {
    await session.post('Profiler.enable')
    await session.post('Profiler.setSamplingInterval', { interval: 1000 })
    await session.post('Profiler.start')
    const result = await phase()
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile }
    const target = path.join(dir, `${file}.cpuprofile`)
    writeFileSync(target, JSON.stringify(profile))
    console.log(`  ${file}: busy time by function (${target})`)
    for (const line of selfTimeSummary(profile, 12)) console.log(`    ${line}`)
    return result
  } finally {
    session.disconnect()
  }
}
