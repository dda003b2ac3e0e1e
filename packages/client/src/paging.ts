// Every list call of the SDK answers a `Paged<T>`: iterate it with `for await` to get every item,
// page after page (each page fetched when the previous one is used up); call `page()` for one page
// with its `nextCursor`; or await it for an array of every item (what list calls answered before,
// kept so that existing code goes on working).

/** One page: its items, and the cursor of the next page (null on the last). */
export interface Page<T> {
  items: T[]
  nextCursor: string | null
}

/** Which page: at most `limit` items, after a `nextCursor`. */
export interface PageRequest {
  limit?: number
  cursor?: string
}

/** Options of a list call: `limit` is the page size used when iterating (the server's maximum by default). */
export interface ListOptions {
  limit?: number
}

export type PageFetcher<T> = (request: PageRequest) => Promise<Page<T>>

/** A list: an async iterable of its items, and (awaited, or wherever a promise is expected) a Promise of all of them. */
export class Paged<T> implements AsyncIterable<T>, Promise<T[]> {
  readonly #fetch: PageFetcher<T>
  readonly #limit: number | undefined

  constructor(fetch: PageFetcher<T>, options: ListOptions = {}) {
    this.#fetch = fetch
    this.#limit = options.limit
  }

  /** One page; pass its `nextCursor` as `cursor` for the next. `limit` defaults to the list's. */
  page(request: PageRequest = {}): Promise<Page<T>> {
    const limit = request.limit ?? this.#limit
    return this.#fetch({
      ...(limit !== undefined ? { limit } : {}),
      ...(request.cursor ? { cursor: request.cursor } : {}),
    })
  }

  /** Every page in turn, from the first. */
  async *pages(): AsyncGenerator<Page<T>> {
    let cursor: string | undefined
    do {
      const page = await this.page(cursor === undefined ? {} : { cursor })
      yield page
      cursor = page.nextCursor ?? undefined
    } while (cursor !== undefined)
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.items
  }

  /** Every item of every page. */
  async toArray(): Promise<T[]> {
    const items: T[] = []
    for await (const page of this.pages()) items.push(...page.items)
    return items
  }

  // biome-ignore lint/suspicious/noThenProperty: on purpose: `await tessera.files.list()` keeps answering an array, as before list calls paged
  then<A = T[], B = never>(
    onFulfilled?: ((items: T[]) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.toArray().then(onFulfilled, onRejected)
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T[] | B> {
    return this.toArray().catch(onRejected)
  }

  finally(onFinally?: (() => void) | null): Promise<T[]> {
    return this.toArray().finally(onFinally)
  }

  readonly [Symbol.toStringTag] = 'Paged'
}

/** The query of one page as the server takes it: numbers as digits, no empty cursor. */
export function pageQuery(page: PageRequest): { limit?: string; cursor?: string } {
  return {
    ...(page.limit !== undefined ? { limit: String(page.limit) } : {}),
    ...(page.cursor ? { cursor: page.cursor } : {}),
  }
}
