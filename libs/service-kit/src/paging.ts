/**
 * The page a list reads from the database for a requested page: MongoDB refuses a skip that is no
 * safe integer, so a page past the last one with a safe offset reads that last one (for the total)
 * and its items are not shown (`beyond`). Any whole page from 1 is a valid request.
 */
export function readablePage(page: number, pageSize: number): { page: number; beyond: boolean } {
  const lastSafePage = Math.floor(Number.MAX_SAFE_INTEGER / pageSize);
  return page > lastSafePage ? { page: lastSafePage, beyond: true } : { page, beyond: false };
}
