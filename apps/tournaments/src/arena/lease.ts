/**
 * A lease as its holder sees it: taken or renewed through `take` (one database write), and only
 * once half of its term has run, since rounds come every ARENA_TICK_MS and at every game's end and
 * a write each would compete with the pairings' own writes. The holder never believes it holds a
 * lease the database no longer gives it: it believes so for half the term it last wrote.
 */
export class RenewedLease {
  private until = 0;

  constructor(
    private readonly ms: number,
    private readonly take: (nowMs: number) => Promise<boolean>,
  ) {}

  /** Whether this owner holds the lease at nowMs, taking or renewing it when due. */
  async hold(nowMs: number): Promise<boolean> {
    if (nowMs < this.until - this.ms / 2) return true;
    const held = await this.take(nowMs);
    this.until = held ? nowMs + this.ms : 0;
    return held;
  }

  /** Whether the lease this owner last took still runs at nowMs (no database call). */
  heldAt(nowMs: number): boolean {
    return nowMs < this.until;
  }

  /** Forgets the lease (it is being released). */
  drop(): void {
    this.until = 0;
  }
}
