// A TCP proxy whose answers arrive late: what a process on a slow or busy link to PostgreSQL sees.
// Bytes from the server reach the client `delayMs` later, in order; bytes from the client go at once.
import net from 'node:net'

export interface SlowLink {
  /** `url` with its host and port replaced by the proxy's. */
  url: string
  close(): Promise<void>
}

export async function slowLink(url: string, delayMs: number): Promise<SlowLink> {
  const target = new URL(url)
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream)
    upstream.on('data', (chunk: Buffer) => {
      setTimeout(() => {
        if (!client.destroyed) client.write(chunk)
      }, delayMs)
    })
    upstream.on('end', () => setTimeout(() => client.end(), delayMs))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  const proxied = new URL(url)
  proxied.hostname = '127.0.0.1'
  proxied.port = String(port)
  return {
    url: proxied.toString(),
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
