/**
 * True for MongoDB's duplicate-key error (code 11000, also what FerretDB answers): a unique index
 * refused a write, or an upsert lost a race to an insert of the same _id.
 */
export function isDuplicateKeyError(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === 11000 || e?.code === 11001 || /E11000 duplicate key/.test(String(e?.message ?? ''));
}
