import { Type } from 'typebox'

export const StreamQuery = Type.Object({
  events: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'Comma-separated event names: only these are sent (default: all).',
    }),
  ),
  lastEventId: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        'Resume after this event (for EventSource polyfills that cannot send the Last-Event-ID header).',
    }),
  ),
})

export const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'Resume after this event: the `id` of the last event received.',
    }),
  ),
})

/** The 200 answer as OpenAPI shows it: a text/event-stream that never ends by itself. */
export const StreamResponse = {
  description:
    'Server-Sent Events. Each event: `id: <event id>`, `event: <event name>`, `data: <the webhook envelope ' +
    'JSON, owner = the caller>`. `event: reset` when Last-Event-ID is unknown (events were missed); ' +
    '`: ping` comments as heartbeats; a final comment says why the server ended the stream.',
  content: {
    'text/event-stream': {
      schema: Type.String({
        examples: [
          'id: 6650f1c2a1b2c3d4e5000001\nevent: file_uploaded\ndata: {"file":"…","event":"file_uploaded",' +
            '"data":{…},"owner":"me@example.com","runTimestamp":1716580802000,"uuid":"…"}\n\n',
        ],
      }),
    },
  },
}
