// The viewer's live session (docs/console.md, "Live sessions"): who else has the file open, their
// cameras as avatars and their selections in 3D, following one of them, and refetching what someone
// changed. Cameras arrive up to 20 times a second per participant: they go straight to the engine,
// never through Preact state (a re-render of the viewer 20 times a second would be wasted); only
// presence (who is here, who follows whom, what they selected), the settings and my follow are.
import type { RefObject } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { client } from '../api/index.ts'
import type {
  ChangedKind,
  LiveCamera,
  LiveListener,
  LiveSession,
  LiveSettings,
  Participant,
} from '../api/live.ts'
import type { ViewerEngine } from '../viewer/engine.ts'

type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'refused'

export interface LiveView {
  status: LiveStatus
  /** Why the server refused (its `closed` detail), when it did. */
  refusal: string
  you: string | null
  participants: Participant[]
  settings: LiveSettings
  following: string | null
  /** The last thing said to screen readers (follow started or stopped, someone joined or left). */
  announcement: string
  follow: (participantId: string | null) => void
  /** False: no live session here at all (a link that does not allow live meetings). */
  available: boolean
  /** A guest who has not given a name yet: the strip asks for one before joining. */
  needsName: boolean
  joinAs: (name: string) => void
}

export interface LiveOptions {
  fileId: string
  engine: RefObject<ViewerEngine | null>
  /** The engine exists once the model is drawn: the effects that use it wait for 'ready'. */
  phase: string
  /** My selection (sent when it changes, bounded: api/live.ts). */
  state: { selected: readonly string[] }
  /** What to read again when someone changed it ('file': nothing the viewer shows). */
  refetch: Record<Exclude<ChangedKind, 'file'>, () => void>
  /**
   * A guest through a link (client.connection.guest): they join with its link session (the current
   * one, read at each connection: the SDK renews it), once they gave a name, and only where the
   * link allows live meetings.
   */
  guest?: boolean | undefined
}

/** The room as last heard: participants by id, with their last camera and selection. */
class Room {
  you: string | null = null
  settings: LiveSettings = { avatars: true, selection: true }
  /** The model is drawn: before, the engine has neither its size nor its parts. */
  ready = false
  readonly people = new Map<string, Participant>()

  others(): Participant[] {
    return [...this.people.values()].filter((p) => p.participantId !== this.you)
  }

  nameOf(id: string | null): string {
    return (id && this.people.get(id)?.name) || 'someone'
  }

  /** What the engine draws: the others' cameras and selections, as far as the settings share them. */
  draw(engine: ViewerEngine | null): void {
    if (!engine || !this.ready) return
    const others = this.others()
    const avatars = this.settings.avatars
      ? others.flatMap((p) =>
          p.camera
            ? [
                {
                  id: p.participantId,
                  name: p.name,
                  color: p.color,
                  position: p.camera.position,
                  target: p.camera.target,
                },
              ]
            : [],
        )
      : []
    const selections = this.settings.selection
      ? others.flatMap((p) =>
          p.selection?.length ? [{ id: p.participantId, color: p.color, ids: p.selection }] : [],
        )
      : []
    engine.setPeers(avatars, selections)
  }
}

/** The viewport's data attributes that say what the engine draws for the others (tests read them). */
function reportDrawn(engine: ViewerEngine, room: Room): void {
  const viewport = engine.renderer.domElement.parentElement
  if (!viewport) return
  const state = engine.liveState()
  const round = (v: number[]) => v.map((n) => Math.round(n * 1000) / 1000)
  const avatars = state.avatars.map((a) => ({ name: room.nameOf(a.id), position: round(a.position) }))
  const selections = Object.entries(state.selections).map(([id, ids]) => ({ name: room.nameOf(id), ids }))
  const [a, s] = [JSON.stringify(avatars), JSON.stringify(selections)]
  if (viewport.dataset.liveAvatars !== a) viewport.dataset.liveAvatars = a
  if (viewport.dataset.liveSelections !== s) viewport.dataset.liveSelections = s
}

export function useLiveSession(options: LiveOptions): LiveView {
  const { fileId, engine } = options
  const link = options.guest ? client.connection.guest : null
  const guest = link ? { allowLive: link.allowLivePublicMeetings } : undefined
  const [guestName, setGuestName] = useState<string | null>(null)
  const enabled = !guest || (guest.allowLive && guestName !== null)
  const ready = options.phase === 'ready'
  const room = useRef(new Room()).current
  const session = useRef<LiveSession | null>(null)
  const [status, setStatus] = useState<LiveStatus>('connecting')
  const [refusal, setRefusal] = useState('')
  const [roster, setRoster] = useState({
    you: room.you,
    people: [] as Participant[],
    settings: room.settings,
  })
  const { following, followingRef, follow, announcement, setAnnouncement } = useFollow(room, session, engine)
  const refetch = useRef(options.refetch)
  refetch.current = options.refetch

  const publish = (): void => {
    setRoster({ you: room.you, people: [...room.people.values()], settings: room.settings })
    room.draw(engine.current)
  }

  useEffect(() => {
    if (!enabled) return
    setStatus('connecting')
    const listener = roomListener(room, {
      publish,
      redraw: () => room.draw(engine.current),
      setStatus,
      setRefusal,
      announce: setAnnouncement,
      changed: (kind) => (kind === 'file' ? undefined : refetch.current[kind]()),
      following: () => followingRef.current,
      stopFollowing: () => follow(null),
      followed: (camera) => engine.current?.follow({ position: camera.position, target: camera.target }),
    })
    const live = client.live.join(
      fileId,
      listener,
      guest && guestName !== null ? { name: guestName } : undefined,
    )
    session.current = live
    return () => {
      live.close()
      session.current = null
      room.people.clear()
      room.you = null
      followingRef.current = null
    }
  }, [fileId, enabled, guestName])

  useEngineLink(engine, ready && enabled, room, session, () => {
    if (followingRef.current) follow(null)
  })
  useEffect(() => {
    session.current?.sendSelection(options.state.selected)
  }, [options.state.selected, status])
  useEscapeStopsFollowing(following !== null, () => follow(null))

  return {
    status,
    refusal,
    you: roster.you,
    settings: roster.settings,
    participants: roster.people,
    following,
    announcement,
    follow,
    available: !guest || guest.allowLive,
    needsName: guest !== undefined && guestName === null,
    joinAs: setGuestName,
  }
}

/** Whom I follow: my camera glides to each of theirs; starting and stopping are announced. */
function useFollow(
  room: Room,
  session: RefObject<LiveSession | null>,
  engine: RefObject<ViewerEngine | null>,
) {
  const [following, setFollowing] = useState<string | null>(null)
  const [announcement, setAnnouncement] = useState('')
  const followingRef = useRef<string | null>(null)
  const follow = (id: string | null): void => {
    const before = followingRef.current
    if (id === before) return
    followingRef.current = id
    setFollowing(id)
    session.current?.sendFollow(id)
    const camera = id ? room.people.get(id)?.camera : undefined
    engine.current?.follow(camera ? { position: camera.position, target: camera.target } : null)
    setAnnouncement(
      id
        ? `Following ${room.nameOf(id)}. Press Escape or move the view to stop.`
        : `Stopped following ${room.nameOf(before)}.`,
    )
  }
  return { following, followingRef, follow, announcement, setAnnouncement }
}

/** While following, Escape anywhere in the page stops it. */
function useEscapeStopsFollowing(following: boolean, stop: () => void): void {
  useEffect(() => {
    if (!following) return
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') stop()
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [following])
}

/**
 * The engine's side: my camera out (on every change; the session keeps to 20 a second), the others
 * drawn once the model is, my own move ending a follow, and the drawn state on the viewport.
 */
function useEngineLink(
  engine: RefObject<ViewerEngine | null>,
  active: boolean,
  room: Room,
  session: RefObject<LiveSession | null>,
  onUserMove: () => void,
): void {
  const userMove = useRef(onUserMove)
  userMove.current = onUserMove
  useEffect(() => {
    const view = engine.current
    if (!active || !view) return
    const sendCamera = () => session.current?.sendCamera({ ...view.getCamera(), fov: view.fieldOfView() })
    view.controls.addEventListener('change', sendCamera)
    view.onUserMove = () => userMove.current()
    sendCamera()
    room.ready = true
    room.draw(view)
    const report = setInterval(() => reportDrawn(view, room), 200)
    return () => {
      clearInterval(report)
      room.ready = false
      view.controls.removeEventListener('change', sendCamera)
      view.onUserMove = () => {}
      view.setPeers([], [])
    }
  }, [active])
}

interface RoomActions {
  publish: () => void
  redraw: () => void
  setStatus: (status: LiveStatus) => void
  setRefusal: (detail: string) => void
  announce: (text: string) => void
  changed: (kind: ChangedKind) => void
  following: () => string | null
  stopFollowing: () => void
  followed: (camera: LiveCamera) => void
}

/** What each message does to the room and the screen. */
function roomListener(room: Room, act: RoomActions): Partial<LiveListener> {
  return {
    welcome({ you, participants, settings }) {
      room.you = you
      room.settings = settings
      room.people.clear()
      for (const p of participants) room.people.set(p.participantId, p)
      act.publish()
    },
    joined(participant) {
      const known = room.people.has(participant.participantId)
      room.people.set(participant.participantId, participant)
      if (!known) act.announce(`${participant.name} joined.`)
      act.publish()
    },
    left(id) {
      const name = room.nameOf(id)
      room.people.delete(id)
      if (act.following() === id) act.stopFollowing()
      act.announce(`${name} left.`)
      act.publish()
    },
    camera(id, camera) {
      const p = room.people.get(id)
      if (!p) return
      p.camera = camera
      if (act.following() === id) act.followed(camera)
      act.redraw()
    },
    selection(id, ids) {
      const p = room.people.get(id)
      if (p) p.selection = ids
      act.publish()
    },
    follow(id, following) {
      const p = room.people.get(id)
      if (p) p.following = following
      act.publish()
    },
    settings(settings) {
      room.settings = settings
      // What was shared before it was turned off would be stale once it is on again: forget it (the
      // next camera or selection of each brings it back).
      for (const p of room.people.values()) {
        if (!settings.avatars) delete p.camera
        if (!settings.selection) delete p.selection
      }
      if (!settings.avatars && act.following()) act.stopFollowing()
      act.publish()
    },
    changed: (kind) => act.changed(kind),
    status(open) {
      act.setStatus(open ? 'live' : 'reconnecting')
    },
    ended(_code, detail) {
      act.setRefusal(detail || 'The live session was refused.')
      act.setStatus('refused')
    },
  }
}
