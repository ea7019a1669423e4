/**
 * Pages read a few at a time and stored in their file's order (the imports): `push` starts one,
 * and once `limit` are under way waits for the oldest and hands its outcome to `take`. Each piece of
 * work is settled to a value as it is pushed, so one that fails while an older one is awaited is no
 * unhandled rejection.
 */
export type Outcome<T> = { value: T } | { error: unknown };

export class InOrder<T, Meta> {
  private readonly pending: { meta: Meta; outcome: Promise<Outcome<T>> }[] = [];

  constructor(
    private readonly limit: number,
    private readonly take: (meta: Meta, outcome: Outcome<T>) => Promise<void> | void,
  ) {}

  async push(meta: Meta, work: Promise<T>): Promise<void> {
    this.pending.push({
      meta,
      outcome: work.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
    });
    while (this.pending.length >= this.limit) await this.takeOldest();
  }

  /** Takes what is still under way, oldest first. */
  async drain(): Promise<void> {
    while (this.pending.length > 0) await this.takeOldest();
  }

  private async takeOldest(): Promise<void> {
    const p = this.pending.shift()!;
    await this.take(p.meta, await p.outcome);
  }
}
