/**
 * Rows written behind the response: `add` queues one, and the queue is written as one batch a
 * moment later (at most `flushMs`, or at once past `maxBatch`), so no request waits for a write of
 * its own. Batches are written one after another; `flush` writes what is queued and resolves once
 * every batch is written. A failed batch is reported (its rows are lost, as a failed insert's row
 * would be), never thrown at a timer. A process killed outright loses at most the last `flushMs`.
 */
export class WriteBehind<T> {
  private queued: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The last batch's write, so that batches stay in order and `flush` waits for them. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly writeBatch: (batch: T[]) => void | Promise<void>,
    private readonly onError: (e: unknown) => void,
    private readonly flushMs = 50,
    private readonly maxBatch = 500,
  ) {}

  add(item: T): void {
    this.queued.push(item);
    if (this.queued.length >= this.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushMs).unref();
  }

  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queued;
    if (batch.length === 0) return this.writing;
    this.queued = [];
    this.writing = this.writing.then(async () => {
      try {
        await this.writeBatch(batch);
      } catch (e) {
        this.onError(e);
      }
    });
    return this.writing;
  }
}
